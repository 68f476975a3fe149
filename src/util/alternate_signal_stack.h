// An alternate stack for the calling thread's signal handlers (sigaltstack), for handlers installed
// with SA_ONSTACK: the CLI's Ctrl-C handlers, and CPython's, which asks for it on every handler.
// oneDNN's generated sgemm kernels (Debian 12's oneDNN 2.6; fixed upstream in 3.11.1,
// uxlfoundation/oneDNN#4845) point rsp at a heap buffer while they run, so a handler's frame pushed
// on the interrupted "stack" writes over the heap: a Ctrl-C during the encoder ended in "corrupted
// size vs. prev_size" instead of the text transcribed so far.
#pragma once

namespace auris {

// Gives the calling thread an alternate signal stack unless it has one (a thread's own, kept for the
// life of the process). Linux hands a process's signal to its main thread while that thread does
// not block it, so the main thread is the one to call this from.
void ensure_alternate_signal_stack();

}  // namespace auris
