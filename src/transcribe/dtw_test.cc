#include "transcribe/dtw.h"

#include <gtest/gtest.h>

#include "auris/error.h"
#include "transcribe/timing_fixtures_for_tests.h"

namespace auris {
namespace {

TEST(Dtw, PathsEqualOpenaiDtwCpuIncludingTies) {
  const auto cases = test::read_timing_fixture("dtw.json");
  ASSERT_GE(cases.size(), 8u);
  for (const auto& c : cases) {
    const std::vector<double> x = c.at("x").get<std::vector<double>>();
    const DtwPath path = dtw(x, c.at("rows").get<int>(), c.at("cols").get<int>());
    EXPECT_EQ(path.text_indices, c.at("text_indices").get<std::vector<int>>()) << c.at("rows") << "x" << c.at("cols");
    EXPECT_EQ(path.time_indices, c.at("time_indices").get<std::vector<int>>()) << c.at("rows") << "x" << c.at("cols");
  }
}

TEST(Dtw, DiagonalWhenItIsCheapest) {
  const std::vector<double> x = {-1, 1, 1, 1, -1, 1, 1, 1, -1};
  const DtwPath path = dtw(x, 3, 3);
  EXPECT_EQ(path.text_indices, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(path.time_indices, (std::vector<int>{0, 1, 2}));
}

TEST(Dtw, RejectsAShapeThatDoesNotMatch) { EXPECT_THROW(dtw(std::vector<double>(5), 2, 3), Error); }

}  // namespace
}  // namespace auris
