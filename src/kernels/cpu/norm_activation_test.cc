#include "kernels/cpu/norm_activation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace auris {
namespace {

TEST(NormActivation, LayerNormGeluSoftmax) {
  std::vector<float> x = {1, 2, 3, 4}, gamma = {1, 1, 2, 2}, beta = {0, 0, 1, 1}, y(4);
  layer_norm(x.data(), 1, 4, gamma.data(), beta.data(), y.data());
  const float inv = 1.0f / std::sqrt(1.25f + 1e-5f);
  EXPECT_NEAR(y[0], -1.5f * inv, 1e-6);
  EXPECT_NEAR(y[3], 2 * 1.5f * inv + 1, 1e-6);
  std::vector<float> g = {0.0f, 1.0f, -1.0f};
  gelu_inplace(g.data(), 3);
  EXPECT_NEAR(g[1], 0.8413447f, 1e-6);  // x * Phi(x)
  EXPECT_NEAR(g[2], -0.1586553f, 1e-6);
  std::vector<float> s = {1.0f, 2.0f, -INFINITY};
  softmax_inplace(s.data(), 3);
  EXPECT_NEAR(s[0] + s[1], 1.0f, 1e-6);
  EXPECT_EQ(s[2], 0.0f);
}

// The vectorised exp inside softmax stays within a few ulp of the C library's over a softmax's whole
// input range (scores minus their maximum, down to where float underflows), and masked scores
// (-inf) give exactly 0.
TEST(NormActivation, SoftmaxExpMatchesLibm) {
  std::vector<float> x;
  for (float v = 0.0f; v > -87.0f; v -= 0.0371f) x.push_back(v);
  std::vector<float> y = x;
  softmax_inplace(y.data(), static_cast<int>(y.size()));
  double sum = 0;
  for (float v : x) sum += std::exp(double(v));
  for (size_t i = 0; i < x.size(); ++i) {
    const double expected = std::exp(double(x[i])) / sum;
    ASSERT_NEAR(y[i], expected, expected * 4e-7 + 1.5e-45) << "x = " << x[i];  // + a subnormal step
  }
  std::vector<float> masked(32, 0.0f);
  for (int i = 16; i < 32; ++i) masked[i] = -INFINITY;
  softmax_inplace(masked.data(), 32);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(masked[i], i < 16 ? 1.0f / 16 : 0.0f) << i;
}

TEST(NormActivation, MaxValueOverVectorsAndTail) {
  for (int n : {0, 1, 7, 8, 9, 51865}) {
    std::vector<float> x(n, -std::numeric_limits<float>::infinity());
    if (n > 0) x[n - 1] = 3.5f;  // in the scalar tail for most n
    if (n > 2) x[n / 2] = 2.0f;
    EXPECT_EQ(max_value(x.data(), n), n > 0 ? 3.5f : -std::numeric_limits<float>::infinity()) << n;
  }
}

// torch.argmax: the first of equal maxima, found in the vectors or in the scalar tail.
TEST(NormActivation, ArgmaxGivesTheFirstOfEqualMaxima) {
  for (int n : {1, 7, 8, 9, 51865}) {
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 13);
    x[n - 1] = 50.0f;  // in the scalar tail for most n
    EXPECT_EQ(argmax(x.data(), n), n - 1) << n;
    if (n > 4) {
      x[n / 2 + 1] = 50.0f;
      x[n / 2] = 50.0f;
      EXPECT_EQ(argmax(x.data(), n), n / 2) << n;
    }
  }
  std::vector<float> suppressed(21, -INFINITY);
  EXPECT_EQ(argmax(suppressed.data(), 21), 0);
  EXPECT_EQ(argmax(nullptr, 0), 0);
}

// Layer norm against its definition in double, for widths with and without a scalar tail after the
// vectors, on rows whose mean is large next to their spread (where a one-pass variance would cancel).
TEST(NormActivation, LayerNormMatchesDoubleDefinition) {
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 0.5f);
  for (int n : {3, 8, 13, 512, 515}) {
    const int rows = 3;
    std::vector<float> x(static_cast<size_t>(rows) * n), gamma(n), beta(n), y(x.size());
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < n; ++i) x[static_cast<size_t>(r) * n + i] = 40.0f * (r + 1) + noise(rng);
    for (int i = 0; i < n; ++i) {
      gamma[i] = 1.0f + 0.1f * noise(rng);
      beta[i] = noise(rng);
    }
    layer_norm(x.data(), rows, n, gamma.data(), beta.data(), y.data());
    for (int r = 0; r < rows; ++r) {
      const float* xr = x.data() + static_cast<size_t>(r) * n;
      double mean = 0, var = 0;
      for (int i = 0; i < n; ++i) mean += xr[i];
      mean /= n;
      for (int i = 0; i < n; ++i) var += (xr[i] - mean) * (xr[i] - mean);
      var /= n;
      for (int i = 0; i < n; ++i) {
        const double expected = (xr[i] - mean) / std::sqrt(var + 1e-5) * gamma[i] + beta[i];
        ASSERT_NEAR(y[static_cast<size_t>(r) * n + i], expected, 2e-5) << "n " << n << " row " << r << " i " << i;
      }
    }
  }
}

// Softmax without its division: exp(x - max) for each entry, vectors and scalar tail alike, the max
// and the sum returned; masked (-inf) entries give 0. softmax_inplace is the same divided by the sum.
TEST(NormActivation, ExpFromMaxLeavesTheDivision) {
  std::mt19937 rng(3);
  std::normal_distribution<float> scores(0.0f, 4.0f);
  for (int n : {1, 7, 8, 21, 1500}) {
    std::vector<float> x(n);
    for (float& v : x) v = scores(rng);
    if (n > 4) x[n - 2] = -INFINITY;
    std::vector<float> e = x, p = x;
    const ExpSum result = exp_from_max_inplace(e.data(), n);
    const double log_sum_exp = softmax_inplace(p.data(), n);
    float max = -INFINITY;
    for (float v : x) max = std::max(max, v);
    EXPECT_EQ(result.max, max) << n;
    double sum = 0;
    for (int i = 0; i < n; ++i) {
      const double expected = std::exp(static_cast<double>(x[i] - max));  // the difference in float, as softmax takes it
      ASSERT_NEAR(e[i], expected, expected * 4e-7) << "n " << n << " i " << i;
      sum += expected;
    }
    EXPECT_NEAR(result.sum, sum, sum * 1e-6) << n;
    EXPECT_NEAR(log_sum_exp, max + std::log(sum), 1e-6) << n;
    for (int i = 0; i < n; ++i) ASSERT_NEAR(p[i], e[i] / result.sum, 1e-7) << "n " << n << " i " << i;
  }
}

}  // namespace
}  // namespace auris
