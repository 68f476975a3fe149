#include "stop_signals.h"

#include <csignal>

#include "util/alternate_signal_stack.h"

namespace auris::cli {

std::atomic<bool>& stop_requested() {
  static std::atomic<bool> requested{false};
  static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");
  return requested;
}

void stop_on_signals() {
  stop_requested();  // constructed before any handler can run
  ensure_alternate_signal_stack();  // util/alternate_signal_stack.h says why
  for (const int signal : {SIGINT, SIGTERM}) {
    struct sigaction old = {};
    if (sigaction(signal, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction action = {};
    action.sa_handler = [](int) { stop_requested().store(true); };
    // SA_ONSTACK: on that stack, not wherever rsp points. No SA_RESTART: a blocked read returns.
    action.sa_flags = SA_RESETHAND | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, nullptr);
  }
}

}  // namespace auris::cli
