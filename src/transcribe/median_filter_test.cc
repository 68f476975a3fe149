#include "transcribe/median_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "auris/error.h"
#include "transcribe/timing_fixtures_for_tests.h"

namespace auris {
namespace {

TEST(MedianFilter, EqualsOpenaiWithReflectPadding) {
  const auto cases = test::read_timing_fixture("median_filter.json");
  for (const auto& c : cases) {
    const auto shape = c.at("shape").get<std::vector<int>>();
    const int cols = shape.back();
    std::vector<float> x;
    for (double v : c.at("x")) x.push_back(static_cast<float>(v));
    median_filter(x, static_cast<int>(x.size()) / cols, cols, c.at("width").get<int>());
    const auto y = c.at("y").get<std::vector<double>>();
    ASSERT_EQ(x.size(), y.size());
    for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(x[i], static_cast<float>(y[i])) << "value " << i;
  }
}

// Width 7, openai's, takes a sorting network; every row here is checked against a sort of its
// reflect-padded windows, with ties (values drawn from a few levels) and rows of odd lengths.
TEST(MedianFilter, WidthSevenEqualsTheMiddleOfEachSortedWindow) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> level(0, 4);
  for (int cols : {4, 7, 16, 17, 50, 1500}) {
    std::vector<float> x(static_cast<size_t>(3) * cols);
    for (float& v : x) v = 0.25f * static_cast<float>(level(random)) - 0.5f;
    std::vector<float> expected(x.size());
    for (int r = 0; r < 3; ++r) {
      const float* row = x.data() + static_cast<size_t>(r) * cols;
      auto reflect = [&](int k) { return row[k < 0 ? -k : k >= cols ? 2 * (cols - 1) - k : k]; };
      for (int k = 0; k < cols; ++k) {
        std::vector<float> window;
        for (int j = -3; j <= 3; ++j) window.push_back(reflect(k + j));
        std::sort(window.begin(), window.end());
        expected[static_cast<size_t>(r) * cols + k] = window[3];
      }
    }
    median_filter(x, 3, cols, 7);
    EXPECT_EQ(x, expected) << cols << " columns";
  }
}

// A row with NaN keeps torch's order (NaN after every number), which min and max would not.
TEST(MedianFilter, NaNSortsAfterEveryNumber) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {nan, nan, nan, nan, 1.0f, 2.0f, 3.0f, 4.0f};
  median_filter(x, 1, 8, 7);
  // Index 4's window is nan nan nan 1 2 3 4: sorted 1 2 3 4 nan nan nan.
  EXPECT_EQ(x[4], 4.0f);
  EXPECT_TRUE(std::isnan(x[0]));  // a window of seven NaN
}

TEST(MedianFilter, RejectsAnEvenWidth) {
  std::vector<float> x(10);
  EXPECT_THROW(median_filter(x, 1, 10, 4), Error);
}

}  // namespace
}  // namespace auris
