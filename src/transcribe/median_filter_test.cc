#include "transcribe/median_filter.h"

#include <gtest/gtest.h>

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

TEST(MedianFilter, RejectsAnEvenWidth) {
  std::vector<float> x(10);
  EXPECT_THROW(median_filter(x, 1, 10, 4), Error);
}

}  // namespace
}  // namespace auris
