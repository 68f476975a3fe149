#include "decoding/top_k.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

namespace auris {
namespace {

// The definition: a stable sort of all indices by value, largest first, cut to k.
std::vector<int> sorted_top_k(const std::vector<float>& values, int k) {
  std::vector<int> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return values[a] > values[b]; });
  order.resize(std::min<size_t>(k, order.size()));
  return order;
}

TEST(TopK, MatchesAStableSortWithManyTies) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> values(1 + rng() % 300);
    // Few distinct values (and -inf, as suppressed tokens are) so that ties are everywhere.
    for (float& v : values) v = rng() % 9 == 0 ? -std::numeric_limits<float>::infinity() : static_cast<float>(rng() % 7);
    for (int k : {1, 2, 6, 11}) ASSERT_EQ(top_k(values, k), sorted_top_k(values, k)) << "trial " << trial << " k " << k;
  }
}

TEST(TopK, KBeyondTheRowGivesEveryIndex) {
  EXPECT_EQ(top_k(std::vector<float>{1.0f, 3.0f, 2.0f}, 5), (std::vector<int>{1, 2, 0}));
  EXPECT_TRUE(top_k(std::vector<float>{1.0f}, 0).empty());
  EXPECT_TRUE(top_k(std::vector<float>{}, 3).empty());
}

}  // namespace
}  // namespace auris
