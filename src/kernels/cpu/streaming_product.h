// The decode step's products: a handful of rows (one per beam) times a large weight matrix, whose
// cost is reading the weights. Each kernel reads a weight row once, uses it for all input rows while
// it sits in L1, and splits the output columns over the threads so each core streams its own share.
// Two to six rows (a beam step) take adjacent weight rows two to four at a time, so that each vector
// of activations loaded feeds one FMA per weight row.
// More rows go by blocks of 8, over column blocks small enough to stay in L2; from 16 rows (a
// prefill, a batched step) int8 rows go across rows instead (row_panel_product.h), and fp16 and bf16
// rows from 16 on AVX-512, from 48 on AVX2 (half_row_products.h).
// The weights are stored in one of four forms:
//  - fp32
//  - fp16: half the bytes; exact for the published checkpoints, which are fp16
//  - bf16: half the bytes, fp32's range, 8 bits of mantissa
//    (these three are widened to fp32 in registers; the arithmetic is fp32)
//  - int8 with one scale per output row: a quarter of the bytes; multiplied in integers with the
//    activations rounded to int16 (one scale per input row), which costs a third of the instructions
//    of widening every weight to fp32
#pragma once

#include <cstdint>
#include <vector>

namespace auris {

struct StreamingOutput {
  const float* bias;  // [out] or null
  float* y;           // [rows x out], row stride ldy
  int ldy;
};

// y = x W^T + b with W [out x in] row-major; x [rows x in], row stride ldx.
void stream_product_f32(const float* x, int rows, int ldx, const float* w, int in, int out, const StreamingOutput& o);
void stream_product_f16(const float* x, int rows, int ldx, const uint16_t* w, int in, int out,
                        const StreamingOutput& o);
void stream_product_bf16(const float* x, int rows, int ldx, const uint16_t* w, int in, int out,
                         const StreamingOutput& o);

// Weights quantised per output row: values[o][i] * scales[o] ~ w[o][i], values in [-127, 127].
// stream_product_int8 sums in int32 (streaming_product.cc says when that holds).
struct Int8Rows {
  std::vector<int8_t> values;  // [out x in]
  std::vector<float> scales;
};
Int8Rows quantize_int8_rows(const float* w, int out, int in);
void stream_product_int8(const float* x, int rows, int ldx, const Int8Rows& w, int in, int out,
                         const StreamingOutput& o);

}  // namespace auris
