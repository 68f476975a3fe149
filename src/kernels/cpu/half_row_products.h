// The two kernels of a product over many rows with fp16 or bf16 weights, between which
// stream_product_f16 and stream_product_bf16 choose by the row count: 8-row blocks over column
// blocks that stay in L2 (streaming_product.cc), and row panels (row_panel_product.cc), from
// half_row_panel_rows() rows on. Callable alone so that they can be compared (bench/levers.cc,
// batched_step_products_f16). Listed in dispatched_kernels.h.
#pragma once

#include <cstdint>

#include "kernels/cpu/streaming_product.h"

namespace auris {

// y = x W^T + b with W fp16 (bf16 false) or bf16 rows [out x in]; x [rows x in], row stride ldx.
void half_product_by_row_blocks(const float* x, int rows, int ldx, const uint16_t* w, bool bf16, int in, int out,
                                const StreamingOutput& o);
void half_product_by_row_panels(const float* x, int rows, int ldx, const uint16_t* w, bool bf16, int in, int out,
                                const StreamingOutput& o);
// The row count from which the products take the panels on this CPU path: 16 on AVX-512, 48 on AVX2.
int half_row_panel_rows();

}  // namespace auris
