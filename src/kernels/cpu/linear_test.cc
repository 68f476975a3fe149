#include "kernels/cpu/linear.h"

#include <gtest/gtest.h>

#include <random>
#include <utility>

#include "model/half_float.h"

namespace auris {
namespace {

Tensor random_tensor(std::vector<int64_t> shape, unsigned seed) {
  Tensor t(std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (float& x : t.data) x = dist(rng);
  return t;
}

void expect_linear_matches_definition(int rows) {
  const Tensor w = random_tensor({6, 5}, 1), b = random_tensor({6}, 2), x = random_tensor({rows, 5}, 3);
  Linear layer(w, b);
  std::vector<float> y(static_cast<size_t>(rows) * 6);
  layer.forward(x.data.data(), rows, y.data());
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < 6; ++o) {
      double acc = b.data[o];
      for (int i = 0; i < 5; ++i) acc += double(x.data[r * 5 + i]) * w.data[o * 5 + i];
      EXPECT_NEAR(y[r * 6 + o], acc, 1e-5) << r << "," << o;
    }
  EXPECT_EQ(layer.rows_multiplied(), rows);
}

TEST(Linear, SingleRow) { expect_linear_matches_definition(1); }
TEST(Linear, FewRowsKernel) { expect_linear_matches_definition(Linear::kFewRows); }
TEST(Linear, BlasGemmRows) { expect_linear_matches_definition(Linear::kFewRows + 13); }

// fp16 and bf16 rows go through the streaming kernel for few rows and through sgemm on weights
// widened to fp32 for many; both give the product of the stored weights.
void expect_half_rows_match_definition(WeightFormat format, int rows) {
  constexpr int kOut = 40, kIn = 70;  // not multiples of the vector width
  Tensor w = random_tensor({kOut, kIn}, 8);
  const bool bf16 = format == WeightFormat::kBfloat16Rows;
  for (float& v : w.data) v = bf16 ? bf16_to_float(float_to_bf16(v)) : fp16_to_float(float_to_fp16(v));
  const Tensor b = random_tensor({kOut}, 9), x = random_tensor({rows, kIn}, 10);
  Linear layer(w, b);
  layer.convert(format);
  std::vector<float> y(static_cast<size_t>(rows) * kOut);
  layer.forward(x.data.data(), rows, y.data());
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < kOut; ++o) {
      double acc = b.data[o];
      for (int i = 0; i < kIn; ++i) acc += double(x.data[r * kIn + i]) * w.data[o * kIn + i];
      EXPECT_NEAR(y[r * kOut + o], acc, 1e-5) << r << "," << o;
    }
}

// A few rows stream; 37 and 200 go across rows (row_panel_product.cc).
TEST(Linear, Fp16RowsStreamedOrAcrossRows) {
  for (const int rows : {3, 37, 200}) expect_half_rows_match_definition(WeightFormat::kFloat16Rows, rows);
}

TEST(Linear, Bf16RowsStreamedOrAcrossRows) {
  for (const int rows : {3, 37, 200}) expect_half_rows_match_definition(WeightFormat::kBfloat16Rows, rows);
}

// int8 rows: at any row count the activations are rounded to int16 and multiplied in integers, a
// few rows by the streaming kernel, many across rows (row_panel_product.cc). Both give the product of
// the dequantised weights to within that rounding, and no row count falls back to anything else.
TEST(Linear, Int8RowsMultiplyActivationsRoundedToInt16) {
  constexpr int kOut = 40, kIn = 70;
  const Tensor w = random_tensor({kOut, kIn}, 8), b = random_tensor({kOut}, 9);
  Linear layer(w, b);
  layer.convert(WeightFormat::kInt8Rows);
  std::vector<float> dequantised(static_cast<size_t>(kOut) * kIn);
  for (int o = 0; o < kOut; ++o) layer.weight_row(o, dequantised.data() + static_cast<size_t>(o) * kIn);
  for (const int rows : {3, 37, 200}) {
    const Tensor x = random_tensor({rows, kIn}, 10);
    std::vector<float> y(static_cast<size_t>(rows) * kOut);
    layer.forward(x.data.data(), rows, y.data());
    for (int r = 0; r < rows; ++r)
      for (int o = 0; o < kOut; ++o) {
        double acc = b.data[o];
        for (int i = 0; i < kIn; ++i) acc += double(x.data[r * kIn + i]) * dequantised[o * kIn + i];
        EXPECT_NEAR(y[r * kOut + o], acc, 2e-3) << rows << " rows: " << r << "," << o;
      }
  }
}

TEST(Linear, ConcatComputesThePartsInOneProduct) {
  Linear a(random_tensor({3, 4}, 4), random_tensor({3}, 5));
  Linear b(random_tensor({2, 4}, 6), Tensor());  // no bias: the fused bias is zero there
  Linear fused = Linear::concat({&a, &b});
  ASSERT_EQ(fused.out_features(), 5);
  const Tensor x = random_tensor({2, 4}, 7);
  std::vector<float> ya(6), yb(4), yf(10);
  a.forward(x.data.data(), 2, ya.data());
  b.forward(x.data.data(), 2, yb.data());
  fused.forward(x.data.data(), 2, yf.data());
  for (int r = 0; r < 2; ++r) {
    for (int o = 0; o < 3; ++o) EXPECT_NEAR(yf[r * 5 + o], ya[r * 3 + o], 1e-6);
    for (int o = 0; o < 2; ++o) EXPECT_NEAR(yf[r * 5 + 3 + o], yb[r * 2 + o], 1e-6);
  }
}

}  // namespace
}  // namespace auris
