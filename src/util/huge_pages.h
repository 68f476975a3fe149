// Large buffers on 2-MB pages. A model's weights and the engine's workspaces are hundreds of MB,
// written once at load or at the first window; on 4-KB pages every page of them costs a fault, which
// perf showed to be most of a model's load time, and a decode step that streams the weights walks
// one TLB entry per 4 KB of them. Where the kernel hands out transparent huge pages on request (its
// "madvise" mode, Debian's default), these helpers request them; elsewhere they change nothing.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <utility>
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

// An allocator for large buffers of plain values that must start as zeros: calloc hands out fresh
// pages, which the kernel zeroes on first touch, and new elements are left as the allocation holds
// them. So the first resize() of a new vector writes nothing, and each page is first touched by
// whichever thread first writes it: a cache filled by a parallel loop costs no serial zero-fill.
// (Room reused after a shrink keeps what it held: take a fresh vector for zeros.)
template <typename T>
struct ZeroedPagesAllocator {
  using value_type = T;
  ZeroedPagesAllocator() = default;
  template <typename U>
  ZeroedPagesAllocator(const ZeroedPagesAllocator<U>&) noexcept {}
  T* allocate(size_t n) {
    void* p = std::calloc(n, sizeof(T));
    if (!p) throw std::bad_alloc();
    advise_huge_pages(p, n * sizeof(T));
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) noexcept { std::free(p); }
  // Default-initialisation: the allocation's zeros stay (T is a plain value type).
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  friend bool operator==(const ZeroedPagesAllocator&, const ZeroedPagesAllocator&) { return true; }
};

// A vector that starts as zeros without a write (ZeroedPagesAllocator).
template <typename T>
using ZeroedVector = std::vector<T, ZeroedPagesAllocator<T>>;

}  // namespace auris
