// The decode step's weight-streaming kernels against the definition computed in double: fp32 and
// fp16 (exact fp16 weights) to rounding, bf16 to bf16's 8-bit mantissa, int8 to the error its
// per-row scales allow. Shapes cover the register-blocked row counts (1-8), more rows (several row
// blocks over L2-sized column blocks, as a prefill), and widths that are not multiples of the vector
// length.
#include "kernels/cpu/streaming_product.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "auris/error.h"
#include "kernels/cpu/linear.h"
#include "model/half_float.h"

namespace auris {
namespace {

struct Case {
  int rows, in, out;
};

// Normal values rounded to fp16, as an fp16 checkpoint's weights are.
std::vector<float> random_values(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist;
  std::vector<float> v(n);
  for (float& x : v) x = fp16_to_float(float_to_fp16(dist(rng)));
  return v;
}

// Relative to the size of the products (sum |w||x|), the scale int8 errors are measured in.
void expect_close(WeightFormat format, const Case& c, double tolerance) {
  const std::vector<float> w = random_values(static_cast<size_t>(c.out) * c.in, 1);
  const std::vector<float> b = random_values(c.out, 2);
  const std::vector<float> x = random_values(static_cast<size_t>(c.rows) * c.in, 3);
  Tensor wt({c.out, c.in}), bt({c.out});
  wt.data = w;
  bt.data = b;
  Linear layer(wt, bt);
  layer.convert(format);
  std::vector<float> y(static_cast<size_t>(c.rows) * c.out);
  layer.forward(x.data(), c.rows, y.data());
  for (int r = 0; r < c.rows; ++r)
    for (int o = 0; o < c.out; ++o) {
      double exact = b[o], magnitude = 0;
      for (int i = 0; i < c.in; ++i) {
        exact += double(w[static_cast<size_t>(o) * c.in + i]) * x[static_cast<size_t>(r) * c.in + i];
        magnitude += std::fabs(double(w[static_cast<size_t>(o) * c.in + i]) * x[static_cast<size_t>(r) * c.in + i]);
      }
      ASSERT_NEAR(y[static_cast<size_t>(r) * c.out + o], exact, tolerance * magnitude + 1e-5)
          << "row " << r << " col " << o << " rows=" << c.rows << " in=" << c.in;
    }
}

// Rows 2-6 take columns several at a time; odd column counts leave some over for the one-column
// kernel, and {5, 512, 301} splits its columns over the threads. One row of 100 or 77 inputs leaves
// vectors and single inputs past int8's whole cache lines.
// From 16 rows (kRowPanelRows) int8 rows go across rows (row_panel_product.cc), and fp16 and bf16
// rows too on AVX-512; on AVX2 those from 48 (kHalfRowPanelRows): {16, 384, 70}, {17, 77, 29},
// {31, 100, 13}, {48, 77, 29} and {150, 384, 700} cover both sides of both.
const Case kCases[] = {{1, 384, 70}, {1, 100, 17}, {1, 77, 9},    {2, 64, 42},    {4, 200, 11},
                       {5, 384, 33}, {6, 72, 10},  {7, 136, 5},   {8, 100, 17},   {13, 77, 9},
                       {3, 1536, 13}, {5, 512, 301}, {150, 384, 700}, {16, 384, 70}, {17, 77, 29}, {31, 100, 13},
                       {48, 77, 29}};

TEST(StreamingProduct, Fp32MatchesDefinition) {
  for (const Case& c : kCases) expect_close(WeightFormat::kFloat32, c, 1e-6);
}

TEST(StreamingProduct, Fp16MatchesDefinition) {
  for (const Case& c : kCases) expect_close(WeightFormat::kFloat16Rows, c, 1e-6);
}

TEST(StreamingProduct, Fp16RowsAreExactOnlyIfAskedForAndRoundOtherwise) {
  Tensor wt({2, 8});
  wt.data[3] = 1.0f + 6.0f / 4096;  // needs 12 mantissa bits: halfway between fp16's 1 + 4/4096 and 1 + 8/4096
  Linear rounded(wt, Tensor());
  rounded.convert(WeightFormat::kFloat16Rows);  // float16: rounds to nearest even
  std::vector<float> ones(8, 1.0f), out(2);
  rounded.forward(ones.data(), 1, out.data());
  EXPECT_EQ(out[0], 1.0f + 8.0f / 4096) << "ties round to the even fp16 value";
  Linear layer(wt, Tensor());
  EXPECT_FALSE(layer.to_fp16_rows_if_exact());  // float32: keeps fp32 unless fp16 is exact
  EXPECT_EQ(layer.format(), WeightFormat::kFloat32);
  std::vector<float> x(8, 1.0f), y(2);
  layer.forward(x.data(), 1, y.data());
  EXPECT_EQ(y[0], 1.0f + 6.0f / 4096) << "the fp32 weights are kept";
}

TEST(StreamingProduct, Bf16MatchesDefinitionToBf16Precision) {
  for (const Case& c : kCases) expect_close(WeightFormat::kBfloat16Rows, c, 1.0 / 256);
}

TEST(StreamingProduct, Int8MatchesDefinitionToQuantisationError) {
  // Weights only are quantised: each weight off by at most half a step, 1/254 of its row's largest.
  for (const Case& c : kCases) expect_close(WeightFormat::kInt8Rows, c, 0.02);
}

// From kRowPanelRows rows the int8 product runs across rows (row_panel_product.cc); its integer
// sums are the 8-row blocks' in another order, so each output is the same float as when the rows go
// through 8 at a time. Widths odd and not multiples of a vector; row counts past one and two panels
// of 8 and 16 rows; column counts leaving a partial tile; 700 columns over several column blocks and
// both threads.
TEST(StreamingProduct, Int8ManyRowsEqualTheRowsTakenEightAtATime) {
  const Case cases[] = {{16, 384, 70}, {17, 77, 29}, {31, 100, 13}, {33, 384, 700}, {40, 1536, 50}, {80, 65, 7}};
  for (const Case& c : cases) {
    const std::vector<float> w = random_values(static_cast<size_t>(c.out) * c.in, 4);
    const std::vector<float> b = random_values(c.out, 5);
    std::vector<float> x = random_values(static_cast<size_t>(c.rows) * c.in, 6);
    for (int i = 0; i < c.in; ++i) x[i] *= 1000.0f;  // rows of very different scales
    const Int8Rows q = quantize_int8_rows(w.data(), c.out, c.in);
    std::vector<float> many(static_cast<size_t>(c.rows) * c.out), eights(many.size());
    stream_product_int8(x.data(), c.rows, c.in, q, c.in, c.out, {b.data(), many.data(), c.out});
    for (int r0 = 0; r0 < c.rows; r0 += 8) {
      const int n = std::min(8, c.rows - r0);
      stream_product_int8(x.data() + static_cast<size_t>(r0) * c.in, n, c.in, q, c.in, c.out,
                          {b.data(), eights.data() + static_cast<size_t>(r0) * c.out, c.out});
    }
    for (size_t i = 0; i < many.size(); ++i)
      ASSERT_EQ(many[i], eights[i]) << "row " << i / c.out << " col " << i % c.out << " rows=" << c.rows << " in=" << c.in;
  }
}

// fp16 and bf16 rows of a batched step (40 or 80 rows) straight through the streaming kernels, which
// send them across rows: fp32 arithmetic on the exactly widened weights, so within fp32 rounding of
// the definition on the widened values (the tolerance of Fp16MatchesDefinition).
TEST(StreamingProduct, HalfRowsAcrossRowsMatchDefinition) {
  const Case cases[] = {{40, 384, 700}, {80, 65, 7}, {33, 1536, 50}};
  for (const bool bf16 : {false, true})
    for (const Case& c : cases) {
      const std::vector<float> w = random_values(static_cast<size_t>(c.out) * c.in, 7);
      const std::vector<float> b = random_values(c.out, 8);
      const std::vector<float> x = random_values(static_cast<size_t>(c.rows) * c.in, 9);
      std::vector<uint16_t> half(w.size());
      for (size_t i = 0; i < w.size(); ++i) half[i] = bf16 ? float_to_bf16(w[i]) : float_to_fp16(w[i]);
      std::vector<float> y(static_cast<size_t>(c.rows) * c.out);
      if (bf16)
        stream_product_bf16(x.data(), c.rows, c.in, half.data(), c.in, c.out, {b.data(), y.data(), c.out});
      else
        stream_product_f16(x.data(), c.rows, c.in, half.data(), c.in, c.out, {b.data(), y.data(), c.out});
      for (int r = 0; r < c.rows; ++r)
        for (int o = 0; o < c.out; ++o) {
          double exact = b[o], magnitude = std::fabs(b[o]);
          for (int i = 0; i < c.in; ++i) {
            const uint16_t h = half[static_cast<size_t>(o) * c.in + i];
            const double wv = bf16 ? bf16_to_float(h) : fp16_to_float(h);
            exact += wv * x[static_cast<size_t>(r) * c.in + i];
            magnitude += std::fabs(wv * x[static_cast<size_t>(r) * c.in + i]);
          }
          ASSERT_NEAR(y[static_cast<size_t>(r) * c.out + o], exact, 1e-6 * magnitude + 1e-5)
              << (bf16 ? "bf16" : "fp16") << " row " << r << " col " << o << " rows=" << c.rows << " in=" << c.in;
        }
    }
}

TEST(StreamingProduct, Int8KeepsZeroRowsAndRowsOfOneSign) {
  Tensor wt({2, 70});
  for (int i = 0; i < 70; ++i) wt.data[70 + i] = 0.5f + 0.01f * i;  // row 0 zero, row 1 positive
  Linear layer(wt, Tensor());
  layer.convert(WeightFormat::kInt8Rows);
  std::vector<float> x(70, 1.0f), y(2);
  layer.forward(x.data(), 1, y.data());
  EXPECT_EQ(y[0], 0.0f);
  double exact = 0;
  for (int i = 0; i < 70; ++i) exact += 0.5 + 0.01 * i;
  EXPECT_NEAR(y[1], exact, exact * 0.01);
}

// Quantisation rounds as lround (half away from zero), exact halves and values just below them
// included.
TEST(StreamingProduct, Int8QuantisationRoundsLikeLround) {
  std::vector<float> w = {127.0f, 0.5f, -0.5f, 1.5f, -2.5f, 0.49999997f, -0.49999997f, 126.5f, 3.7f, -3.2f};
  const std::vector<float> random = random_values(5000, 21);
  w.insert(w.end(), random.begin(), random.end());
  w[20] = 127.0f;  // a second row shares the layout: 10 columns per row here is fine
  const int in = 10, out = static_cast<int>(w.size()) / in;
  const Int8Rows q = quantize_int8_rows(w.data(), out, in);
  for (int o = 0; o < out; ++o)
    for (int i = 0; i < in; ++i) {
      const float v = w[static_cast<size_t>(o) * in + i];
      const long expected = std::clamp(std::lround(v / q.scales[o]), -127L, 127L);
      ASSERT_EQ(q.values[static_cast<size_t>(o) * in + i], expected) << "row " << o << " value " << v;
    }
}

TEST(StreamingProduct, WeightRowsReadBackInEveryStreamingFormat) {
  Tensor wt({3, 40});
  wt.data = random_values(120, 9);
  for (WeightFormat f : {WeightFormat::kFloat32, WeightFormat::kFloat16Rows, WeightFormat::kBfloat16Rows, WeightFormat::kInt8Rows}) {
    Linear layer(wt, Tensor());
    layer.convert(f);
    std::vector<float> row(40);
    layer.weight_row(2, row.data());
    for (int i = 0; i < 40; ++i) EXPECT_NEAR(row[i], wt.data[80 + i], 0.02 * std::fabs(wt.data[80 + i]) + 0.02) << i;
  }
}

}  // namespace
}  // namespace auris
