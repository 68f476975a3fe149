#include "util/lazy_zero_pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace auris {
namespace {

// Pages of [p, p + bytes) that hold memory, by mincore().
size_t resident_pages(const void* p, size_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> flags((bytes + page - 1) / page);
  if (mincore(const_cast<void*>(p), bytes, flags.data()) != 0) return SIZE_MAX;
  size_t n = 0;
  for (unsigned char f : flags) n += f & 1;
  return n;
}

constexpr size_t kBytes = size_t{64} << 20;

TEST(LazyZeroPages, HoldsOnlyTheWrittenPagesAndGivesThemBack) {
  LazyZeroPages buffer(kBytes, "for a test");
  auto* bytes = static_cast<unsigned char*>(buffer.data());
  ASSERT_NE(bytes, nullptr);
  EXPECT_EQ(resident_pages(bytes, kBytes), 0u);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // One byte in each of 64 pages a megabyte apart, the way a cache's rows are written.
  for (size_t i = 0; i < 64; ++i) bytes[i << 20] = static_cast<unsigned char>(i + 1);
  const size_t written = resident_pages(bytes, kBytes);
  EXPECT_GE(written, 64u);
  EXPECT_LE(written, 64u * 4) << "a write brought in far more than its page (" << written * page / 1024 << " KB)";
  EXPECT_EQ(bytes[5 << 20], 6);
  EXPECT_EQ(bytes[(5 << 20) + 1], 0);

  buffer.release();
  EXPECT_EQ(resident_pages(bytes, kBytes), 0u);
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(bytes[i << 20], 0) << "page " << i << " kept its contents";
}

TEST(LazyZeroPages, MovesItsMappingAndEmptyOnesAreHarmless) {
  LazyZeroPages a(size_t{1} << 20, "for a test");
  void* p = a.data();
  std::memset(p, 7, 4096);
  LazyZeroPages b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.bytes(), size_t{1} << 20);
  EXPECT_EQ(a.data(), nullptr);
  a.release();  // nothing mapped: nothing happens
  LazyZeroPages c;
  c = std::move(b);
  EXPECT_EQ(static_cast<unsigned char*>(c.data())[100], 7);
  LazyZeroPages none(0, "for nothing");
  EXPECT_EQ(none.data(), nullptr);
}

}  // namespace
}  // namespace auris
