#include "util/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace auris {

void advise_huge_pages(const void* p, size_t bytes) {
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHugePage - 1);
  // A refusal (no THP in this kernel, or "never") only leaves the 4-KB pages: nothing to report.
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace auris
