// The kernels compiled once per CPU path (cpu_path.h), listed once. Each path's build defines them in
// its own namespace (auris::cpu_scalar, auris::cpu_avx2, auris::cpu_avx512); kernel_dispatch.cc
// defines the auris:: functions the rest of the code calls, each forwarding to the chosen path.
// Inside a path's sources an unqualified call to another listed kernel stays on that path.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "decoding/log_softmax.h"
#include "decoding/top_k.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/cpu_path.h"
#include "kernels/cpu/half_row_products.h"
#include "kernels/cpu/lstm_cell.h"
#include "kernels/cpu/norm_activation.h"
#include "kernels/cpu/row_quantization.h"
#include "kernels/cpu/streaming_product.h"

// X(return type, name, (parameters), (arguments))
#define AURIS_CPU_KERNELS(X)                                                                                    \
  X(void, attention, (const AttentionInput& in, float* out, int ldo, std::vector<float>& scratch),             \
    (in, out, ldo, scratch))                                                                                     \
  X(void, attention_over_shared_prompt,                                                                          \
    (const SharedPromptInput& in, float* out, int ldo, std::vector<float>& scratch), (in, out, ldo, scratch))   \
  X(void, layer_norm, (const float* x, int rows, int n, const float* gamma, const float* beta, float* y, float eps), \
    (x, rows, n, gamma, beta, y, eps))                                                                           \
  X(void, gelu_inplace, (float* x, long count), (x, count))                                                     \
  X(void, add_inplace, (float* y, const float* x, long count), (y, x, count))                                   \
  X(void, lstm_cell, (float* gates, const float* hidden_weights, int hidden, float* h, float* c),              \
    (gates, hidden_weights, hidden, h, c))                                                                       \
  X(double, softmax_inplace, (float* x, int n), (x, n))                                                          \
  X(ExpSum, exp_from_max_inplace, (float* x, int n), (x, n))                                                     \
  X(float, max_value, (const float* x, long n), (x, n))                                                          \
  X(long, argmax, (const float* x, long n), (x, n))                                                              \
  X(void, stream_product_f32,                                                                                    \
    (const float* x, int rows, int ldx, const float* w, int in, int out, const StreamingOutput& o),             \
    (x, rows, ldx, w, in, out, o))                                                                               \
  X(void, stream_product_f16,                                                                                    \
    (const float* x, int rows, int ldx, const uint16_t* w, int in, int out, const StreamingOutput& o),          \
    (x, rows, ldx, w, in, out, o))                                                                               \
  X(void, stream_product_bf16,                                                                                   \
    (const float* x, int rows, int ldx, const uint16_t* w, int in, int out, const StreamingOutput& o),          \
    (x, rows, ldx, w, in, out, o))                                                                               \
  X(void, half_product_by_row_blocks,                                                                            \
    (const float* x, int rows, int ldx, const uint16_t* w, bool bf16, int in, int out, const StreamingOutput& o), \
    (x, rows, ldx, w, bf16, in, out, o))                                                                         \
  X(void, half_product_by_row_panels,                                                                            \
    (const float* x, int rows, int ldx, const uint16_t* w, bool bf16, int in, int out, const StreamingOutput& o), \
    (x, rows, ldx, w, bf16, in, out, o))                                                                         \
  X(int, half_row_panel_rows, (), ())                                                                            \
  X(float, quantize_row_shifted, (const float* x, int n, uint8_t* q), (x, n, q))                                \
  X(float, quantize_row_symmetric, (const float* x, int n, int8_t* q), (x, n, q))                              \
  X(float, quantize_weight_row_7bit, (const float* w, int n, int8_t* q, int32_t* sum), (w, n, q, sum))          \
  X(float, quantize_row_int16, (const float* x, int n, int16_t* q), (x, n, q))                                  \
  X(void, dequantize_row,                                                                                        \
    (const int32_t* sums, const int32_t* offsets, const float* column_scales, float row_scale, const float* bias, \
     int n, float* y),                                                                                           \
    (sums, offsets, column_scales, row_scale, bias, n, y))                                                       \
  X(Int8Rows, quantize_int8_rows, (const float* w, int out, int in), (w, out, in))                               \
  X(void, stream_product_int8,                                                                                   \
    (const float* x, int rows, int ldx, const Int8Rows& w, int in, int out, const StreamingOutput& o),          \
    (x, rows, ldx, w, in, out, o))                                                                               \
  X(void, log_softmax, (std::span<const float> logits, std::span<float> out), (logits, out))                    \
  X(float, log_softmax_at, (std::span<const float> logits, int index), (logits, index))                         \
  X(double, softmax_probability, (std::span<const float> logits, int index), (logits, index))                   \
  X(double, log_sum_exp, (std::span<const float> values), (values))                                              \
  X(std::vector<int>, top_k, (std::span<const float> values, int k), (values, k))

#define AURIS_DECLARE_CPU_KERNEL(type, name, parameters, arguments) type name parameters;

namespace auris {
namespace cpu_scalar {
AURIS_CPU_KERNELS(AURIS_DECLARE_CPU_KERNEL)
}
namespace cpu_avx2 {
AURIS_CPU_KERNELS(AURIS_DECLARE_CPU_KERNEL)
}
namespace cpu_avx512 {
AURIS_CPU_KERNELS(AURIS_DECLARE_CPU_KERNEL)
}

// Whether this build compiled the path's kernels (CMake's AURIS_CPU_PATHS).
bool cpu_path_built(CpuPath path);
}  // namespace auris
