#include "stop_signals.h"

#include <csignal>

namespace auris::cli {

std::atomic<bool>& stop_requested() {
  static std::atomic<bool> requested{false};
  static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");
  return requested;
}

void stop_on_signals() {
  stop_requested();  // constructed before any handler can run
  for (const int signal : {SIGINT, SIGTERM}) {
    struct sigaction old = {};
    if (sigaction(signal, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction action = {};
    action.sa_handler = [](int) { stop_requested().store(true); };
    action.sa_flags = SA_RESETHAND;  // no SA_RESTART: a blocked read returns
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, nullptr);
  }
}

}  // namespace auris::cli
