#include "stop_signals.h"

#include <csignal>
#include <vector>

namespace auris::cli {

std::atomic<bool>& stop_requested() {
  static std::atomic<bool> requested{false};
  static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");
  return requested;
}

namespace {

// The calling thread's alternate signal stack, unless it has one already (the main thread, to
// which Linux hands a process's signal while that thread does not block it). oneDNN's generated
// sgemm kernels (Debian 12's oneDNN 2.6; fixed upstream in 3.11.1, uxlfoundation/oneDNN#4845)
// point rsp at a heap buffer while they run: a handler's frame pushed there wrote over the heap,
// and a Ctrl-C during the encoder ended in "corrupted size vs. prev_size" instead of the text so far.
void use_alternate_signal_stack() {
  stack_t current = {};
  if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;
  static std::vector<char> memory(1 << 16);  // lives as long as the process: the handler may run at any time
  stack_t own = {};
  own.ss_sp = memory.data();
  own.ss_size = memory.size();
  sigaltstack(&own, nullptr);
}

}  // namespace

void stop_on_signals() {
  stop_requested();  // constructed before any handler can run
  use_alternate_signal_stack();
  for (const int signal : {SIGINT, SIGTERM}) {
    struct sigaction old = {};
    if (sigaction(signal, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction action = {};
    action.sa_handler = [](int) { stop_requested().store(true); };
    // SA_ONSTACK: on the stack above, not wherever rsp points. No SA_RESTART: a blocked read returns.
    action.sa_flags = SA_RESETHAND | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, nullptr);
  }
}

}  // namespace auris::cli
