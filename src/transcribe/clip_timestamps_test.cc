#include "transcribe/clip_timestamps.h"

#include <gtest/gtest.h>

#include "auris/error.h"

namespace auris {
namespace {

using Clips = std::vector<std::pair<int, int>>;

TEST(SeekClips, AsOpenaiPairsFramesAndDefaultsTheLastEnd) {
  EXPECT_EQ(seek_clips({}, 1100), (Clips{{0, 1100}}));
  EXPECT_EQ(seek_clips({0.0}, 1100), (Clips{{0, 1100}}));
  EXPECT_EQ(seek_clips({1.5, 3.0, 4.2}, 1100), (Clips{{150, 300}, {420, 1100}}));
  // round(): halves to even, as Python's.
  EXPECT_EQ(seek_clips({0.125, 0.135}, 1100), (Clips{{12, 14}}));
}

TEST(SeekClips, StopsAtTheEndOfTheAudio) {
  EXPECT_EQ(seek_clips({5.0, 20.0}, 1100), (Clips{{500, 1100}}));
  EXPECT_EQ(seek_clips({20.0}, 1100), (Clips{{1100, 1100}}));
}

TEST(SeekClips, RefusesNegativeOrBackwardClips) {
  EXPECT_THROW(seek_clips({-0.5}, 1100), Error);
  EXPECT_THROW(seek_clips({3.0, 2.0}, 1100), Error);
}

}  // namespace
}  // namespace auris
