// The int8 product for many rows (a batched decode step: the beams of many windows), in the CPU path's
// namespace: for the path's sources only (cpu_path.h). stream_product_int8 calls it once it has rounded
// the activations to int16, so its sums are the integers the few-rows kernels add up, in another
// order, and every output is the same float.
#pragma once

#include <cstdint>

#include "kernels/cpu/streaming_product.h"

#ifndef AURIS_CPU_PATH
#error "int8_row_panels.h is for the sources compiled once per CPU path (src/kernels/cpu/CMakeLists.txt)"
#endif

namespace auris::AURIS_CPU_PATH {

// One output of an int8 product from its integer sum: the only arithmetic in float, shared by the
// kernels so that they round alike.
inline float int8_product_output(int32_t sum, float x_scale, float w_scale, float bias) {
  return static_cast<float>(sum) * x_scale * w_scale + bias;
}

// From this many rows the row-panel kernel beats the 8-row blocks (bench/levers.cc,
// int8_many_row_products).
constexpr int kInt8RowPanelRows = 16;

// y = x W^T + b with x already rounded: q [rows x in] int16, row r scaled by q_scales[r].
void int8_product_by_row_panels(const int16_t* q, const float* q_scales, int rows, const Int8Rows& w, int in,
                                int out, const StreamingOutput& o);

}  // namespace auris::AURIS_CPU_PATH
