// A buffer of zeros that holds memory only where it has been written, and can give it back. Anonymous
// pages of its own mapping: the kernel backs a page at its first write, and release() returns the
// written pages, after which the buffer reads as zeros again. A decoder's static self-attention
// cache (448 positions for every row) is written only as far as a window's tokens reach; a batch
// slot keeps its cache from window to window, and without release() it held every page that any
// of its earlier windows had written.
#pragma once

#include <cstddef>

namespace auris {

class LazyZeroPages {
 public:
  LazyZeroPages() = default;
  // Throws OutOfMemory (naming `purpose`) when the mapping is refused.
  LazyZeroPages(size_t bytes, const char* purpose);
  ~LazyZeroPages();
  LazyZeroPages(LazyZeroPages&& other) noexcept;
  LazyZeroPages& operator=(LazyZeroPages&& other) noexcept;
  LazyZeroPages(const LazyZeroPages&) = delete;
  LazyZeroPages& operator=(const LazyZeroPages&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  // Every written page back to the kernel: the contents are zeros again, and hold no memory.
  void release();

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace auris
