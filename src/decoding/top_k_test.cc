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

// A vocabulary-sized row, as beam search passes it: the best values spread over the row, in the
// vectors that are passed over whole and in the scalar tail, and ties with the k-th best.
TEST(TopK, MatchesAStableSortOverAVocabulary) {
  std::mt19937 rng(11);
  std::normal_distribution<float> logits(0.0f, 3.0f);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<float> values(51865 - trial);
    for (float& v : values) v = logits(rng);
    for (int j = 0; j < 4; ++j) values[rng() % values.size()] = 20.0f + static_cast<float>(j % 2);  // ties
    values[values.size() - 1 - trial % 7] = 19.5f;  // in the tail for most trials
    if (trial % 3 == 0) values[rng() % values.size()] = -std::numeric_limits<float>::infinity();
    for (int k : {1, 6, 11}) ASSERT_EQ(top_k(values, k), sorted_top_k(values, k)) << "trial " << trial << " k " << k;
  }
}

TEST(TopK, KBeyondTheRowGivesEveryIndex) {
  EXPECT_EQ(top_k(std::vector<float>{1.0f, 3.0f, 2.0f}, 5), (std::vector<int>{1, 2, 0}));
  EXPECT_TRUE(top_k(std::vector<float>{1.0f}, 0).empty());
  EXPECT_TRUE(top_k(std::vector<float>{}, 3).empty());
}

}  // namespace
}  // namespace auris
