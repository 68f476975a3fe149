// The row quantisers (7, 8 and 16 bits) and the dequantiser on the chosen CPU path (ctest runs them on each path),
// against their plain definitions: the same integers and scales, halves rounded as each defines
// them, NaN to the lowest level, at lengths that leave every tail of the vector loops.
#include "kernels/cpu/row_quantization.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace auris {
namespace {

constexpr int kLengths[] = {1, 7, 8, 31, 32, 33, 64, 100, 384, 1536};

std::vector<float> random_row(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  std::vector<float> x(n);
  for (float& v : x) v = dist(rng);
  return x;
}

// A row whose largest magnitude is 127, so that scale and inverse are 1 and every x.5 is a tie.
std::vector<float> row_of_ties(int n) {
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = (i % 2 ? -1.0f : 1.0f) * (0.5f + static_cast<float>(i % 120));
  x[0] = 127.0f;
  return x;
}

float largest_magnitude(const std::vector<float>& x) {
  float largest = 0.0f;
  for (float v : x)
    if (std::fabs(v) > largest) largest = std::fabs(v);
  return largest;
}

void expect_shifted_matches_definition(const std::vector<float>& x) {
  const int n = static_cast<int>(x.size());
  const float scale = largest_magnitude(x) / 127.0f;
  const float inverse = scale > 0.0f ? 1.0f / scale : 0.0f;
  std::vector<uint8_t> q(n + 1, 0xEE);
  EXPECT_EQ(quantize_row_shifted(x.data(), n, q.data()), scale);
  for (int i = 0; i < n; ++i) {
    const float v = x[i] * inverse;
    const long level = std::isnan(v) ? -127 : std::clamp(std::lround(v), -127L, 127L);  // lround: halves away
    ASSERT_EQ(q[i], level + 128) << "n " << n << " at " << i << " x " << x[i];
  }
  EXPECT_EQ(q[n], 0xEE) << "wrote past the row";
}

void expect_symmetric_matches_definition(const std::vector<float>& x) {
  const int n = static_cast<int>(x.size());
  const float largest = largest_magnitude(x);
  const float inverse = largest > 0.0f ? 127.0f / largest : 0.0f;
  std::vector<int8_t> q(n + 1, 0x5A);
  EXPECT_EQ(quantize_row_symmetric(x.data(), n, q.data()), largest / 127.0f);
  for (int i = 0; i < n; ++i) {
    const float v = x[i] * inverse;
    const float level = std::isnan(v) ? -127.0f : std::clamp(std::nearbyint(v), -127.0f, 127.0f);  // halves to even
    ASSERT_EQ(q[i], static_cast<int8_t>(level)) << "n " << n << " at " << i << " x " << x[i];
  }
  EXPECT_EQ(q[n], 0x5A) << "wrote past the row";
}

TEST(RowQuantization, ShiftedBytesMatchTheDefinition) {
  for (int n : kLengths) {
    expect_shifted_matches_definition(random_row(n, n));
    expect_shifted_matches_definition(row_of_ties(n));
  }
}

TEST(RowQuantization, SymmetricBytesMatchTheDefinition) {
  for (int n : kLengths) {
    expect_symmetric_matches_definition(random_row(n, n + 1));
    expect_symmetric_matches_definition(row_of_ties(n));
  }
}

TEST(RowQuantization, HalvesRoundAsEachDefines) {
  // inverse 1: 2.5 is a tie, away from zero for the shifted bytes, to even for the symmetric ones.
  const std::vector<float> x = {127.0f, 2.5f, -2.5f, 3.5f, 0.5f, -0.5f, 126.5f, -126.5f};
  std::vector<uint8_t> shifted(x.size());
  std::vector<int8_t> symmetric(x.size());
  quantize_row_shifted(x.data(), static_cast<int>(x.size()), shifted.data());
  quantize_row_symmetric(x.data(), static_cast<int>(x.size()), symmetric.data());
  EXPECT_EQ(std::vector<int>(shifted.begin(), shifted.end()), (std::vector<int>{255, 131, 125, 132, 129, 127, 255, 1}));
  EXPECT_EQ(std::vector<int>(symmetric.begin(), symmetric.end()), (std::vector<int>{127, 2, -2, 4, 0, 0, 126, -126}));
}

TEST(RowQuantization, ZeroNanAndInfinityRowsStayDefined) {
  for (int n : {8, 40}) {
    const std::vector<float> zeros(n, 0.0f);
    expect_shifted_matches_definition(zeros);
    expect_symmetric_matches_definition(zeros);
    std::vector<float> with_nan = random_row(n, 3);
    with_nan[5] = std::numeric_limits<float>::quiet_NaN();
    expect_shifted_matches_definition(with_nan);  // the NaN is left out of the scale
    expect_symmetric_matches_definition(with_nan);
    std::vector<float> with_inf = random_row(n, 4);
    with_inf[2] = std::numeric_limits<float>::infinity();  // scale inf: every value NaN after scaling
    expect_shifted_matches_definition(with_inf);
  }
}

TEST(RowQuantization, Int16ActivationsMatchTheDefinition) {
  for (int n : kLengths)
    for (const std::vector<float>& x : {random_row(n, n + 2), row_of_ties(n), std::vector<float>(n, 0.0f)}) {
      const float largest = largest_magnitude(x);
      const float scale = largest > 0.0f ? largest / 16383.0f : 1.0f;
      std::vector<int16_t> q(n + 1, 0x5A5A);
      EXPECT_EQ(quantize_row_int16(x.data(), n, q.data()), scale);
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(q[i], static_cast<int16_t>(std::lrint(x[i] * (1.0f / scale)))) << "n " << n << " at " << i;
      EXPECT_EQ(q[n], 0x5A5A) << "wrote past the row";
    }
}

// The int8 encoder's weights: 63 levels from the row's largest magnitude, the division itself, then
// nearbyint (halves to even), NaN to -63; the sum of the levels beside them.
void expect_weight_row_matches_definition(const std::vector<float>& w) {
  const int n = static_cast<int>(w.size());
  const float scale = largest_magnitude(w) / 63.0f;
  std::vector<int8_t> q(n + 1, 0x5A);
  int32_t sum = -1;
  EXPECT_EQ(quantize_weight_row_7bit(w.data(), n, q.data(), &sum), scale);
  int32_t expected_sum = 0;
  for (int i = 0; i < n; ++i) {
    const float level = scale > 0.0f ? std::min(63.0f, std::max(-63.0f, w[i] / scale)) : 0.0f;
    ASSERT_EQ(q[i], static_cast<int8_t>(std::nearbyint(level))) << "n " << n << " at " << i << " w " << w[i];
    expected_sum += q[i];
  }
  EXPECT_EQ(sum, expected_sum);
  EXPECT_EQ(q[n], 0x5A) << "wrote past the row";
}

TEST(RowQuantization, SevenBitWeightsMatchTheDefinition) {
  for (int n : kLengths) {
    expect_weight_row_matches_definition(random_row(n, n + 3));
    std::vector<float> ties(n);  // largest 63, so scale 1 and every x.5 is a tie
    for (int i = 0; i < n; ++i) ties[i] = (i % 2 ? -1.0f : 1.0f) * (0.5f + static_cast<float>(i % 62));
    ties[0] = 63.0f;
    expect_weight_row_matches_definition(ties);
    expect_weight_row_matches_definition(std::vector<float>(n, 0.0f));
    std::vector<float> with_nan = random_row(n, n + 4);
    with_nan[n / 2] = std::numeric_limits<float>::quiet_NaN();
    expect_weight_row_matches_definition(with_nan);
    std::vector<float> with_inf = random_row(n, n + 5);
    with_inf[n - 1] = -std::numeric_limits<float>::infinity();
    expect_weight_row_matches_definition(with_inf);
  }
}

TEST(RowQuantization, DequantisedRowsMatchTheDefinition) {
  std::mt19937 rng(9);
  std::uniform_int_distribution<int32_t> sum(-2000000, 2000000);
  std::uniform_real_distribution<float> unit(0.001f, 0.02f);
  for (int n : kLengths) {
    std::vector<int32_t> sums(n), offsets(n);
    std::vector<float> scales(n), bias(n), y(n + 1, -9.0f);
    for (int o = 0; o < n; ++o) {
      sums[o] = sum(rng);
      offsets[o] = sum(rng) / 16;
      scales[o] = unit(rng);
      bias[o] = unit(rng) - 0.01f;
    }
    for (const float* b : {static_cast<const float*>(nullptr), static_cast<const float*>(bias.data())}) {
      dequantize_row(sums.data(), offsets.data(), scales.data(), 0.37f, b, n, y.data());
      for (int o = 0; o < n; ++o) {
        const double product = double(sums[o] - offsets[o]) * (0.37 * scales[o]), added = b ? b[o] : 0.0;
        // Three float roundings of the product, one of the sum.
        ASSERT_NEAR(y[o], product + added, 4e-7 * (std::fabs(product) + std::fabs(added))) << "n " << n << " at " << o;
      }
      EXPECT_EQ(y[n], -9.0f) << "wrote past the row";
    }
  }
}

}  // namespace
}  // namespace auris
