// Rows of floats to 8- or 16-bit integers with one scale per row, and int32 sums back to floats: the
// int8 matrix products' activations (packed_gemm, streaming_product) and the int8 cross-attention
// cache (kv_cache). Each is
// defined by its plain loop in the comments; the CPU paths give the same integers.
#pragma once

#include <cstdint>

namespace auris {

// q[i] = round(x[i] / scale) + 128, halves away from zero, with scale = max |x| / 127 (0 for a row of
// zeros) and inverse = 1 / scale: activations as unsigned bytes for u8 x s8 products. NaN goes to the
// lowest level and is left out of the maximum. Returns scale.
float quantize_row_shifted(const float* x, int n, uint8_t* q);

// q[i] = round(x[i] * 127 / max |x|), halves to even, clamped to [-127, 127] (NaN to -127). Returns
// max |x| / 127.
float quantize_row_symmetric(const float* x, int n, int8_t* q);

// The int8 encoder's weights (packed_gemm, 7 bits so that AVX2's pair sums of u8 x s8 products fit
// int16): q[i] = nearbyint(min(63, max(-63, w[i] / scale))) (halves to even, NaN to -63), scale =
// max |w| / 63, a row of zeros all 0. Returns scale; *sum = the sum of q.
float quantize_weight_row_7bit(const float* w, int n, int8_t* q, int32_t* sum);

// q[i] = lrint(x[i] / scale) (halves to even), scale = max |x| / 16383 (1 for a row of zeros): a decode
// step's activations for the int16-pair products, whose pair sums then fit int32 (stream_product_int8
// says when the whole sum does). Returns scale.
float quantize_row_int16(const float* x, int n, int16_t* q);

// y[o] = (sums[o] - offsets[o]) * (row_scale * column_scales[o]) + bias[o] (bias may be null).
void dequantize_row(const int32_t* sums, const int32_t* offsets, const float* column_scales, float row_scale,
                    const float* bias, int n, float* y);

}  // namespace auris
