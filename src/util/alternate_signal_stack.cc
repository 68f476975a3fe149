#include "util/alternate_signal_stack.h"

#include <csignal>
#include <cstdlib>

namespace auris {

void ensure_alternate_signal_stack() {
  stack_t current = {};
  if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;
  constexpr size_t kBytes = 1 << 16;  // well above SIGSTKSZ, for AVX-512's saved registers too
  stack_t own = {};
  own.ss_sp = std::malloc(kBytes);  // never freed: a handler may run until the process ends
  if (!own.ss_sp) return;           // then handlers run where they always did
  own.ss_size = kBytes;
  sigaltstack(&own, nullptr);
}

}  // namespace auris
