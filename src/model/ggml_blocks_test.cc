#include "model/ggml_blocks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "auris/error.h"
#include "model/ggml_format.h"
#include "model/half_float.h"

namespace auris {
namespace {

float scale_of(const uint8_t* block) {
  uint16_t h;
  std::memcpy(&h, block, 2);
  return fp16_to_float(h);
}

// d = 127 / 127 = 1; halves round away from zero, as roundf does.
TEST(GgmlBlocks, Q8_0ScaleAndRounding) {
  std::vector<float> x(kGgmlBlockWeights, 0.0f);
  x[0] = 127.0f;
  x[1] = -127.0f;
  x[2] = 2.5f;
  x[3] = -2.5f;
  x[4] = 0.4f;
  std::vector<uint8_t> block(ggml_block_bytes(kGgmlQ8_0));
  ASSERT_EQ(block.size(), 34u);
  quantize_ggml_blocks(kGgmlQ8_0, x.data(), x.size(), block.data());
  EXPECT_EQ(scale_of(block.data()), 1.0f);
  const std::vector<int8_t> expected = {127, -127, 3, -3, 0, 0};
  for (size_t j = 0; j < expected.size(); ++j) EXPECT_EQ(static_cast<int8_t>(block[2 + j]), expected[j]) << j;
  std::vector<float> back(x.size());
  dequantize_ggml_blocks(kGgmlQ8_0, block.data(), x.size(), back.data());
  EXPECT_EQ(back[0], 127.0f);
  EXPECT_EQ(back[3], -3.0f);
}

// The weight of largest magnitude (-8) sets d = -8 / -8 = 1 and maps to nibble 0; nibble =
// min(15, floor(x / d + 8.5)), so +8 clips to 15 and halves round up; weight j + 16 is byte j's high
// nibble.
TEST(GgmlBlocks, Q4_0ScaleNibblesAndClipping) {
  std::vector<float> x(kGgmlBlockWeights, 0.0f);
  x[0] = -8.0f;
  x[1] = 7.0f;
  x[2] = 8.0f;  // as large as -8 but later: -8 stays the block's extreme
  x[3] = 0.5f;
  x[4] = -0.5f;
  x[16] = 3.0f;
  std::vector<uint8_t> block(ggml_block_bytes(kGgmlQ4_0));
  ASSERT_EQ(block.size(), 18u);
  quantize_ggml_blocks(kGgmlQ4_0, x.data(), x.size(), block.data());
  EXPECT_EQ(scale_of(block.data()), 1.0f);
  const std::vector<uint8_t> expected = {0xB0, 0x8F, 0x8F, 0x89, 0x88, 0x88};
  for (size_t j = 0; j < expected.size(); ++j) EXPECT_EQ(block[2 + j], expected[j]) << j;
  std::vector<float> back(x.size());
  dequantize_ggml_blocks(kGgmlQ4_0, block.data(), x.size(), back.data());
  const std::vector<float> expected_back = {-8.0f, 7.0f, 7.0f, 1.0f, 0.0f};
  for (size_t j = 0; j < expected_back.size(); ++j) EXPECT_EQ(back[j], expected_back[j]) << j;
  EXPECT_EQ(back[16], 3.0f);

  // A positive extreme gives a negative scale, and maps to nibble 0 all the same.
  std::vector<float> y(kGgmlBlockWeights, 1.0f);
  y[5] = 8.0f;
  quantize_ggml_blocks(kGgmlQ4_0, y.data(), y.size(), block.data());
  EXPECT_EQ(scale_of(block.data()), -1.0f);
  dequantize_ggml_blocks(kGgmlQ4_0, block.data(), y.size(), back.data());
  EXPECT_EQ(back[5], 8.0f);
  EXPECT_EQ(back[0], 1.0f);
}

// Every weight comes back within half a step (q8_0) or a step (q4_0, whose +8 end clips) of its
// block's scale, plus the scale's own rounding to fp16; an all-zero block comes back zero.
TEST(GgmlBlocks, RoundTripWithinTheScale) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  std::vector<float> x(64 * kGgmlBlockWeights);
  for (float& v : x) v = normal(rng);
  std::fill(x.begin(), x.begin() + kGgmlBlockWeights, 0.0f);
  for (const auto& [type, steps] : {std::pair{kGgmlQ8_0, 0.5f}, std::pair{kGgmlQ4_0, 1.0f}}) {
    const size_t bytes = ggml_block_bytes(type);
    std::vector<uint8_t> blocks(x.size() / kGgmlBlockWeights * bytes);
    quantize_ggml_blocks(type, x.data(), x.size(), blocks.data());
    std::vector<float> back(x.size());
    dequantize_ggml_blocks(type, blocks.data(), x.size(), back.data());
    for (size_t i = 0; i < x.size(); ++i) {
      const float d = std::fabs(scale_of(blocks.data() + i / kGgmlBlockWeights * bytes));
      ASSERT_LE(std::fabs(back[i] - x[i]), d * (steps + 0.07f)) << ggml_type_name(type) << " weight " << i;
    }
    for (int j = 0; j < kGgmlBlockWeights; ++j) EXPECT_EQ(back[j], 0.0f);
  }
}

TEST(GgmlBlocks, RefusesPartialBlocksAndOtherTypes) {
  std::vector<float> x(40, 1.0f);
  std::vector<uint8_t> out(64);
  EXPECT_THROW(quantize_ggml_blocks(kGgmlQ8_0, x.data(), x.size(), out.data()), Error);
  EXPECT_THROW(dequantize_ggml_blocks(kGgmlQ4_0, out.data(), x.size(), x.data()), Error);
  EXPECT_THROW(quantize_ggml_blocks(kGgmlF16, x.data(), 32, out.data()), Error);
  EXPECT_EQ(ggml_block_bytes(kGgmlF32), 0u);
  EXPECT_EQ(ggml_block_bytes(6), 0u);  // q5_0
}

}  // namespace
}  // namespace auris
