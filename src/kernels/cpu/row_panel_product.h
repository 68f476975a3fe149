// Products over many rows (a batched decode step: the beams of many windows; a prefill), in the CPU
// path's namespace: for the path's sources only (cpu_path.h). The streaming kernels call them from
// kRowPanelRows rows.
//  - int8 rows: stream_product_int8 hands over the activations it has rounded to int16, so the sums
//    are the integers the few-rows kernels add up, in another order, and every output is the same
//    float as theirs.
//  - fp16 and bf16 rows: widened exactly to fp32 a block of columns at a time, multiplied in fp32;
//    only the order of the sums differs from the other fp32 products.
#pragma once

#include <cstdint>

#include "kernels/cpu/streaming_product.h"

#ifndef AURIS_CPU_PATH
#error "row_panel_product.h is for the sources compiled once per CPU path (src/kernels/cpu/CMakeLists.txt)"
#endif

namespace auris::AURIS_CPU_PATH {

// One output of an int8 product from its integer sum: the only arithmetic in float, shared by the
// int8 kernels so that they round alike.
inline float int8_product_output(int32_t sum, float x_scale, float w_scale, float bias) {
  return static_cast<float>(sum) * x_scale * w_scale + bias;
}

// From this many rows the row panels beat the 8-row blocks (bench/levers.cc,
// batched_step_products_int8 and batched_step_products_f16).
constexpr int kRowPanelRows = 16;

// y = x W^T + b with x already rounded: q [rows x in] int16, row r scaled by q_scales[r].
void int8_product_by_row_panels(const int16_t* q, const float* q_scales, int rows, const Int8Rows& w, int in,
                                int out, const StreamingOutput& o);
// y = x W^T + b with W fp16 (bf16 false) or bf16 rows [out x in]; x [rows x in], row stride ldx.
void half_product_by_row_panels(const float* x, int rows, int ldx, const uint16_t* w, bool bf16, int in, int out,
                                const StreamingOutput& o);

}  // namespace auris::AURIS_CPU_PATH
