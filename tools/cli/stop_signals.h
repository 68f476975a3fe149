// Ctrl-C (SIGINT) and SIGTERM ask a long command to stop and keep its work: `auris stream` stops
// reading and flushes, `auris transcribe` stops after the window it is decoding and prints and writes
// what it has. A second signal ends the process at once (SA_RESETHAND). A signal the process was
// started ignoring (a background job of a non-interactive shell, nohup) stays ignored. The handlers
// run on an alternate stack (util/alternate_signal_stack.h says why).
#pragma once

#include <atomic>

namespace auris::cli {

// Installs the handlers; call once, from the main thread, before the work.
void stop_on_signals();
// Set by the handlers (and by a command that stops for its own reasons).
std::atomic<bool>& stop_requested();

}  // namespace auris::cli
