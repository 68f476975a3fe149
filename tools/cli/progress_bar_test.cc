#include "progress_bar.h"

#include <gtest/gtest.h>

namespace auris::cli {
namespace {

TEST(ProgressBar, ShowsPercentSpeedAndTimeLeft) {
  // 60 s of a 240-s file done in 10 s: 6x real time, 180 s of audio left = 30 s.
  EXPECT_EQ(ProgressBar::render("talk.mp3", 60, 240, 10),
            "talk.mp3 [######..................]  25%  6.0x real time  ETA 0:30");
  EXPECT_EQ(ProgressBar::render("a", 0, 100, 0), "a [........................]   0%");
  EXPECT_EQ(ProgressBar::render("a", 120, 100, 2).substr(0, 33), "a [########################] 100%");
}

}  // namespace
}  // namespace auris::cli
