#include "util/lazy_zero_pages.h"

#include <sys/mman.h>

#include <string>
#include <utility>

#include "util/out_of_memory.h"

namespace auris {

LazyZeroPages::LazyZeroPages(size_t bytes, const char* purpose) : bytes_(bytes) {
  if (bytes == 0) return;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw OutOfMemory(std::string(purpose) + " (" + std::to_string(bytes >> 20) + " MB)");
  data_ = p;
  // 4-KB pages: a 2-MB page would be backed whole at the first write into it, and the rows a
  // cache writes lie far apart. A kernel without THP refuses, which changes nothing.
  madvise(data_, bytes_, MADV_NOHUGEPAGE);
}

LazyZeroPages::~LazyZeroPages() {
  if (data_) munmap(data_, bytes_);
}

LazyZeroPages::LazyZeroPages(LazyZeroPages&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

LazyZeroPages& LazyZeroPages::operator=(LazyZeroPages&& other) noexcept {
  if (this != &other) {
    if (data_) munmap(data_, bytes_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void LazyZeroPages::release() {
  // MADV_DONTNEED on private anonymous memory: the next read of a page sees zeros.
  if (data_) madvise(data_, bytes_, MADV_DONTNEED);
}

}  // namespace auris
