// Narrow weights widened to fp32, exactly, for the products oneDNN's sgemm runs on them (a prompt's
// many rows): bf16 values, and int8 rows times their scales.
#pragma once

#include <cstdint>

namespace auris {

void widen_bf16(const uint16_t* src, long n, float* dst);
// dst[o][i] = values[o][i] * scales[o] for `rows` rows of `in` values from row `first`.
void dequantize_int8_rows(const int8_t* values, const float* scales, int first, int rows, int in, float* dst);

}  // namespace auris
