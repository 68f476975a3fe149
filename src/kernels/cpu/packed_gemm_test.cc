// oneDNN's GEMM with weights packed at load, against the definition in double: fp32 to rounding,
// bf16 (where the CPU has it) within bf16 rounding of both operands; with and without the fused
// GELU, at the row counts the encoder uses and at others (one primitive serves every row count).
#include "kernels/cpu/packed_gemm.h"

#include <gtest/gtest.h>

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
      const double tolerance = precision == GemmPrecision::kBfloat16 ? magnitude / 128 + 1e-4 : magnitude * 1e-6 + 1e-5;
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

TEST(PackedGemm, Bfloat16WhereUnsupportedSaysWhatToDo) {
  if (PackedGemm::supported(GemmPrecision::kBfloat16)) GTEST_SKIP() << "this CPU has bfloat16 matrix instructions";
  const std::vector<float> w(64 * 64, 0.5f);
  try {
    PackedGemm(w.data(), 64, 64, {}, GemmPrecision::kBfloat16);
    FAIL() << "expected auris::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--compute-type float32"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace auris
