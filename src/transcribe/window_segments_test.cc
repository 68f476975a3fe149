#include "transcribe/window_segments.h"

#include <gtest/gtest.h>

namespace auris {
namespace {

constexpr int kT0 = 50364;  // <|0.00|> of the multilingual vocabulary
int ts(double seconds) { return kT0 + static_cast<int>(seconds / 0.02 + 0.5); }

TEST(SplitWindow, ConsecutiveTimestampsCloseSegments) {
  // <|0.00|> a b <|2.00|><|2.00|> c <|4.00|>  (single timestamp ending: the window is complete)
  const std::vector<int> tokens = {ts(0), 1, 2, ts(2), ts(2), 3, ts(4)};
  const WindowSplit s = split_window(tokens, kT0, /*seek=*/1000, /*segment_size=*/3000);
  ASSERT_EQ(s.segments.size(), 2u);
  EXPECT_DOUBLE_EQ(s.segments[0].start, 10.0);
  EXPECT_DOUBLE_EQ(s.segments[0].end, 12.0);
  EXPECT_EQ(s.segments[0].tokens, (std::vector<int>{ts(0), 1, 2, ts(2)}));
  EXPECT_DOUBLE_EQ(s.segments[1].start, 12.0);
  EXPECT_DOUBLE_EQ(s.segments[1].end, 14.0);
  EXPECT_EQ(s.seek_advance, 3000);
}

TEST(SplitWindow, UnfinishedSegmentIsLeftForTheNextWindow) {
  // <|0.00|> a <|3.00|><|3.00|> b c   (no closing timestamp: seek to 3.00 s = 300 frames)
  const std::vector<int> tokens = {ts(0), 1, ts(3), ts(3), 2, 3};
  const WindowSplit s = split_window(tokens, kT0, 0, 3000);
  ASSERT_EQ(s.segments.size(), 1u);
  EXPECT_EQ(s.seek_advance, 300);
}

TEST(SplitWindow, NoConsecutiveTimestampsMakesOneSegment) {
  const std::vector<int> tokens = {ts(0), 1, 2, ts(5.5)};
  const WindowSplit s = split_window(tokens, kT0, 0, 1100);
  ASSERT_EQ(s.segments.size(), 1u);
  EXPECT_DOUBLE_EQ(s.segments[0].end, 5.5);
  EXPECT_EQ(s.seek_advance, 1100);
  // Without any timestamp the segment spans the window's audio.
  const WindowSplit plain = split_window({1, 2, 3}, kT0, 0, 1100);
  EXPECT_DOUBLE_EQ(plain.segments[0].end, 11.0);
}

}  // namespace
}  // namespace auris
