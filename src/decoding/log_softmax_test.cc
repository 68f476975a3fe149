#include "decoding/log_softmax.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace auris {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Logits as a decode step leaves them: spread out, some suppressed (-inf), a length that leaves a
// scalar tail after the vectors.
std::vector<float> logits_row(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> logit(0.0f, 4.0f);
  std::vector<float> row(n);
  for (float& v : row) v = logit(rng);
  for (int i = 0; i < n; i += 97) row[i] = kNegInf;
  return row;
}

double log_sum_exp_in_double(const std::vector<float>& values) {
  double m = -INFINITY;
  for (float v : values) m = std::max<double>(m, v);
  double sum = 0.0;
  for (float v : values) sum += std::exp(v - m);
  return m + std::log(sum);
}

TEST(LogSoftmax, LogSumExpMatchesDoubleDefinition) {
  for (int n : {7, 8, 1501, 51865}) {
    const std::vector<float> row = logits_row(n, static_cast<unsigned>(n));
    EXPECT_NEAR(log_sum_exp(row), log_sum_exp_in_double(row), 1e-6) << n;
  }
  EXPECT_EQ(log_sum_exp(std::vector<float>{2.5f}), 2.5);
  const std::vector<float> suppressed(13, kNegInf);
  EXPECT_EQ(log_sum_exp(suppressed), -std::numeric_limits<double>::infinity());
}

TEST(LogSoftmax, LogProbabilitiesMatchDoubleDefinitionAndSumToOne) {
  const std::vector<float> row = logits_row(51865, 5);
  std::vector<float> out(row.size());
  log_softmax(row, out);
  const double normaliser = log_sum_exp_in_double(row);
  double total = 0.0;
  for (size_t i = 0; i < row.size(); ++i) {
    if (std::isinf(row[i])) {
      ASSERT_EQ(out[i], kNegInf) << i;
      continue;
    }
    ASSERT_NEAR(out[i], row[i] - normaliser, 2e-5 * (1 + std::fabs(row[i] - normaliser))) << i;
    total += std::exp(static_cast<double>(out[i]));
  }
  EXPECT_NEAR(total, 1.0, 1e-5);
  for (int index : {0, 1, 4242, 51864}) EXPECT_EQ(log_softmax_at(row, index), out[index]) << index;
  EXPECT_NEAR(softmax_probability(row, 3), std::exp(row[3] - normaliser), 1e-9);
}

}  // namespace
}  // namespace auris
