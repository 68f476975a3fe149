#include "model/half_float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace auris {
namespace {

TEST(HalfFloat, EveryFp16ValueRoundTrips) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = fp16_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_fp16(f), h) << h;
  }
}

TEST(HalfFloat, KnownValuesAndRounding) {
  EXPECT_EQ(fp16_to_float(0x3c00), 1.0f);
  EXPECT_EQ(fp16_to_float(0xc000), -2.0f);
  EXPECT_EQ(fp16_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(fp16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(float_to_fp16(65519.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7c00);                        // rounds to infinity
  EXPECT_EQ(float_to_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);    // tie: to even
  EXPECT_EQ(float_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie: to even (up)
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -25)), 0x0000);           // tie between 0 and the smallest subnormal
  EXPECT_EQ(float_to_fp16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(float_to_fp16(std::ldexp(3.0f, -25)), 0x0002);           // tie 1.5 ulp: to even
  EXPECT_EQ(float_to_fp16(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(fp16_to_float(float_to_fp16(NAN))));
}

TEST(HalfFloat, Bfloat16) {
  EXPECT_EQ(bf16_to_float(0x3f80), 1.0f);
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);  // tie: to even
  EXPECT_EQ(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  for (uint32_t b = 0; b < 65536; ++b) {
    const float f = bf16_to_float(static_cast<uint16_t>(b));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_bf16(f), b);
  }
}

// The bulk conversions (vectorised where the build has F16C) agree with the bit-by-bit ones on
// every fp16 value, at every offset (the byte source may be unaligned).
TEST(HalfFloat, BulkConversionsMatchScalar) {
  std::vector<uint8_t> bytes(2 * 65536 + 1);
  for (uint32_t h = 0; h < 65536; ++h) {
    bytes[1 + 2 * h] = static_cast<uint8_t>(h & 0xff);
    bytes[2 + 2 * h] = static_cast<uint8_t>(h >> 8);
  }
  std::vector<float> wide(65536);
  fp16_to_float_n(bytes.data() + 1, wide.size(), wide.data());
  std::vector<float> finite;
  for (uint32_t h = 0; h < 65536; ++h) {
    const float expected = fp16_to_float(static_cast<uint16_t>(h));
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(wide[h])) << h;
      continue;
    }
    ASSERT_EQ(wide[h], expected) << h;
    finite.push_back(expected);
  }
  std::vector<uint16_t> narrow(finite.size());
  EXPECT_TRUE(float_to_fp16_exact_n(finite.data(), finite.size(), narrow.data()));
  for (size_t i = 0; i < finite.size(); ++i) ASSERT_EQ(fp16_to_float(narrow[i]), finite[i]) << i;
  for (size_t at : {size_t{3}, finite.size() - 2}) {  // one inexact value, in the vector body or the tail
    std::vector<float> one_off = finite;
    one_off[at] = 1.0f + 1.0f / 4096;
    EXPECT_FALSE(float_to_fp16_exact_n(one_off.data(), one_off.size(), narrow.data())) << at;
  }
}

}  // namespace
}  // namespace auris
