// oneDNN's GEMM with weights packed at load, against the definition in double: fp32 to rounding,
// bf16 (where the CPU has it) within bf16 rounding of both operands, int8 within its quantisation
// steps; with and without the fused GELU, at the row counts the encoder uses and at others (one
// primitive serves every row count). int8's integer sums are checked exactly, on weights whose
// adjacent products would saturate vpmaddubsw's int16 sums at 8 bits.
#include "kernels/cpu/packed_gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "auris/error.h"

namespace auris {
namespace {

void expect_matches_definition(int rows, int in, int out, bool with_bias, bool gelu, GemmPrecision precision) {
  std::mt19937 rng(5);
  std::normal_distribution<float> dist;
  std::vector<float> w(static_cast<size_t>(out) * in), x(static_cast<size_t>(rows) * in), bias;
  for (float& v : w) v = dist(rng);
  for (float& v : x) v = dist(rng);
  if (with_bias) {
    bias.resize(out);
    for (float& v : bias) v = dist(rng);
  }
  const PackedGemm gemm(w.data(), out, in, bias, precision);
  const int ldy = out + 3;  // a strided output, as the cross K/V cache writes
  std::vector<float> y(static_cast<size_t>(rows) * ldy, -7.0f);
  gemm.forward(x.data(), rows, in, y.data(), ldy, gelu);
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out; ++o) {
      double exact = with_bias ? bias[o] : 0.0, magnitude = 0;
      for (int i = 0; i < in; ++i) {
        exact += double(x[static_cast<size_t>(r) * in + i]) * w[static_cast<size_t>(o) * in + i];
        magnitude += std::fabs(double(x[static_cast<size_t>(r) * in + i]) * w[static_cast<size_t>(o) * in + i]);
      }
      if (gelu) exact = 0.5 * exact * (1.0 + std::erf(exact / std::sqrt(2.0)));
      // int8: each weight within half a step of its row's largest / 63, each input of its row's / 127.
      double int8_bound = 0;
      if (precision == GemmPrecision::kInt8) {
        float w_max = 0, x_max = 0;
        for (int i = 0; i < in; ++i) {
          w_max = std::max(w_max, std::fabs(w[static_cast<size_t>(o) * in + i]));
          x_max = std::max(x_max, std::fabs(x[static_cast<size_t>(r) * in + i]));
        }
        for (int i = 0; i < in; ++i)
          int8_bound += std::fabs(x[static_cast<size_t>(r) * in + i]) * w_max / 126 +
                        std::fabs(w[static_cast<size_t>(o) * in + i]) * x_max / 254 + w_max * x_max / (126.0 * 254);
      }
      const double tolerance = precision == GemmPrecision::kBfloat16 ? magnitude / 128 + 1e-4
                               : precision == GemmPrecision::kInt8   ? int8_bound * 1.01 + 1e-4
                                                                     : magnitude * 1e-6 + 1e-5;
      ASSERT_NEAR(y[static_cast<size_t>(r) * ldy + o], exact, tolerance) << r << "," << o;
    }
  for (int r = 0; r < rows; ++r) EXPECT_EQ(y[static_cast<size_t>(r) * ldy + out], -7.0f) << "wrote past its row";
}

void expect_every_shape(GemmPrecision precision) {
  expect_matches_definition(37, 96, 40, true, false, precision);
  expect_matches_definition(5, 64, 33, false, false, precision);   // no bias
  expect_matches_definition(20, 48, 24, true, true, precision);    // GELU fused
  expect_matches_definition(1, 64, 16, true, false, precision);    // one packing, every row count
  expect_matches_definition(300, 64, 16, true, false, precision);
}

TEST(PackedGemm, Float32MatchesDefinition) { expect_every_shape(GemmPrecision::kFloat32); }

TEST(PackedGemm, Bfloat16MatchesDefinition) {
  if (!PackedGemm::supported(GemmPrecision::kBfloat16))
    GTEST_SKIP() << "this CPU has no bfloat16 matrix instructions (AVX-512 BF16 or AMX)";
  expect_every_shape(GemmPrecision::kBfloat16);
}

TEST(PackedGemm, Int8WithinItsQuantisation) {
  if (!PackedGemm::supported(GemmPrecision::kInt8)) GTEST_SKIP() << "oneDNN has no int8 matrix product for this CPU";
  expect_every_shape(GemmPrecision::kInt8);
}

// Inputs at their row's largest value and weights at theirs: 8-bit weights would give adjacent
// products summing to 2 * 255 * 127, past int16, where AVX2's vpmaddubsw saturates; the 7-bit
// weights keep every integer sum exact, so the output is the quantised product exactly.
TEST(PackedGemm, Int8SumsDoNotSaturate) {
  if (!PackedGemm::supported(GemmPrecision::kInt8)) GTEST_SKIP() << "oneDNN has no int8 matrix product for this CPU";
  constexpr int kIn = 64, kOut = 8, kRows = 3;
  std::vector<float> w(kOut * kIn), x(kRows * kIn);
  for (int o = 0; o < kOut; ++o)
    for (int i = 0; i < kIn; ++i) w[o * kIn + i] = (o % 2 ? -1.0f : 1.0f) * (i % 5 == 4 ? 0.25f : 1.0f);
  for (int r = 0; r < kRows; ++r)
    for (int i = 0; i < kIn; ++i) x[r * kIn + i] = (r + 1.0f) * (i % 3 == 2 ? -0.25f : 1.0f);
  const PackedGemm gemm(w.data(), kOut, kIn, {}, GemmPrecision::kInt8);
  std::vector<float> y(kRows * kOut);
  gemm.forward(x.data(), kRows, kIn, y.data(), kOut, false);
  for (int r = 0; r < kRows; ++r)
    for (int o = 0; o < kOut; ++o) {
      // Each value is a whole number of steps: w in {+-63, +-16 (0.25 of 63, rounded)} / 63 of its
      // scale, x in {127, -32 (0.25 of 127, rounded)} / 127 of its.
      long sum = 0;
      for (int i = 0; i < kIn; ++i) {
        const long wq = (o % 2 ? -1 : 1) * (i % 5 == 4 ? 16 : 63);
        const long xq = i % 3 == 2 ? -32 : 127;
        sum += wq * xq;
      }
      const double expected = static_cast<double>(sum) * (1.0 / 63) * ((r + 1.0) / 127);
      EXPECT_NEAR(y[r * kOut + o], expected, std::fabs(expected) * 1e-6) << r << "," << o;
    }
}

TEST(PackedGemm, Bfloat16WhereUnsupportedSaysWhatToDo) {
  if (PackedGemm::supported(GemmPrecision::kBfloat16)) GTEST_SKIP() << "this CPU has bfloat16 matrix instructions";
  const std::vector<float> w(64 * 64, 0.5f);
  try {
    PackedGemm(w.data(), 64, 64, {}, GemmPrecision::kBfloat16);
    FAIL() << "expected auris::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("compute type \"float32\""), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace auris
