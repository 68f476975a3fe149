// A recording's chunks read once, in order, whoever asks first: a chunk asked for ahead of the ones
// before it leaves them for their takers; a recording shorter than its chunks says it changed.
#include "batch/chunk_reader.h"

#include <gtest/gtest.h>

#include <numeric>

#include "auris/error.h"
#include "test_support.h"

namespace auris {
namespace {

std::vector<float> ramp(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 0.0f);
  return v;
}

TEST(ChunkReader, ChunksComeOutWhoeverAsksFirst) {
  const std::vector<float> audio = ramp(100);
  ChunkReader reader(std::make_unique<MemorySampleSource>(audio), {30, 30, 40});
  EXPECT_EQ(reader.samples_in(2), 40);
  const std::vector<float> third = reader.take(2);  // reads the first two ahead
  ASSERT_EQ(third.size(), 40u);
  EXPECT_EQ(third.front(), 60.0f);
  const std::vector<float> first = reader.take(0);
  EXPECT_EQ(first.front(), 0.0f);
  EXPECT_EQ(reader.take(1).back(), 59.0f);
  EXPECT_NE(test::error_of([&] { reader.take(1); }).find("taken already"), std::string::npos);
  EXPECT_NE(test::error_of([&] { reader.take(3); }).find("does not exist"), std::string::npos);
}

TEST(ChunkReader, ARecordingThatEndsEarlyHasChanged) {
  const std::vector<float> audio = ramp(50);
  ChunkReader reader(std::make_unique<MemorySampleSource>(audio), {30, 30});
  EXPECT_EQ(reader.take(0).size(), 30u);
  EXPECT_NE(test::error_of([&] { reader.take(1); }).find("did the file change"), std::string::npos);
}

}  // namespace
}  // namespace auris
