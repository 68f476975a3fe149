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
// batched_step_products_int8 and batched_step_products_f16). On AVX2, where a panel is 8 rows, fp16
// and bf16 rows stay in the blocks below 48 rows: tiny.en's batched beam-5 steps (up to 35 rows)
// took three quarters of the panels' time, base's about nine tenths; the lever, over base's shapes,
// has the blocks ahead at 16 rows and the panels from about 64.
constexpr int kRowPanelRows = 16;
#if AURIS_CPU_PATH_LEVEL == 1
constexpr int kHalfRowPanelRows = 48;
#else
constexpr int kHalfRowPanelRows = kRowPanelRows;
#endif

// y = x W^T + b with x already rounded: q [rows x in] int16, row r scaled by q_scales[r].
void int8_product_by_row_panels(const int16_t* q, const float* q_scales, int rows, const Int8Rows& w, int in,
                                int out, const StreamingOutput& o);
// half_product_by_row_panels: half_row_products.h.

}  // namespace auris::AURIS_CPU_PATH
