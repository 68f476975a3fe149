// Sampling at a temperature: tokens drawn in proportion to softmax(logits / T), suppressed tokens
// (-inf) never.
#include "decoding/greedy_decoder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <vector>

namespace auris {
namespace {

constexpr float kSuppressed = -std::numeric_limits<float>::infinity();
constexpr int kSamplingEot = 7;

// How often each token is drawn from `row`, over `draws` rows sampled at `temperature`.
std::map<int, double> frequencies(const std::vector<float>& row, double temperature, int draws) {
  GreedyDecoder decoder(temperature, kSamplingEot, /*seed=*/42);
  const int n_vocab = static_cast<int>(row.size());
  std::vector<float> logits;
  for (int r = 0; r < draws; ++r) logits.insert(logits.end(), row.begin(), row.end());
  TokenRows tokens(draws, std::vector<int>{1});
  std::vector<float> sum_logprobs(draws, 0.0f);
  decoder.update(tokens, logits, n_vocab, sum_logprobs);
  std::map<int, double> counts;
  for (const std::vector<int>& t : tokens) counts[t.back()] += 1.0 / draws;
  return counts;
}

TEST(GreedyDecoderSampling, DrawsInProportionToSoftmaxOverTheTemperature) {
  // A vocabulary longer than a vector's tail, three tokens allowed: e^0, e^ln2, e^ln5 at T = 1.
  std::vector<float> row(203, kSuppressed);
  row[3] = 0.0f;
  row[100] = std::log(2.0f);
  row[201] = std::log(5.0f);
  std::map<int, double> f = frequencies(row, 1.0, 20000);
  EXPECT_EQ(f.size(), 3u) << "a suppressed token was drawn";
  EXPECT_NEAR(f[3], 1.0 / 8, 0.01);
  EXPECT_NEAR(f[100], 2.0 / 8, 0.01);
  EXPECT_NEAR(f[201], 5.0 / 8, 0.01);

  // At T = 0.5 the weights are squared: 1, 4, 25.
  f = frequencies(row, 0.5, 20000);
  EXPECT_EQ(f.size(), 3u);
  EXPECT_NEAR(f[3], 1.0 / 30, 0.006);
  EXPECT_NEAR(f[100], 4.0 / 30, 0.01);
  EXPECT_NEAR(f[201], 25.0 / 30, 0.01);
}

}  // namespace
}  // namespace auris
