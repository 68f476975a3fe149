// Large buffers on 2-MB pages. A model's weights and the engine's workspaces are hundreds of MB,
// written once at load or at the first window; on 4-KB pages every page of them costs a fault, which
// perf showed to be most of a model's load time, and a decode step that streams the weights walks
// one TLB entry per 4 KB of them. Where the kernel hands out transparent huge pages on request (its
// "madvise" mode, Debian's default), these helpers request them; elsewhere they change nothing.
#pragma once

#include <cstddef>
#include <vector>

namespace auris {

// Asks that the whole 2-MB pages inside [p, p + bytes) be backed by huge pages. It takes effect on
// memory not yet written, so call it before the first write. A buffer holding no whole 2-MB page is
// left as it is.
void advise_huge_pages(const void* p, size_t bytes);

// v.reserve(n), the new room advised as above: for a buffer about to be resized or filled to n.
template <typename T>
void reserve_on_huge_pages(std::vector<T>& v, size_t n) {
  if (n <= v.capacity()) return;
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
}

// v.resize(n) (new elements value-initialised), new room on huge pages as above.
template <typename T>
void resize_on_huge_pages(std::vector<T>& v, size_t n) {
  reserve_on_huge_pages(v, n);
  v.resize(n);
}

}  // namespace auris
