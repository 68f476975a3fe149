// A dense layer y = x W^T + b with W stored [out x in] as PyTorch stores it. The weights live in one
// format, chosen at load by the compute type (auris::ComputeType) and the layer's use:
//  - kFloat32: fp32 as loaded; a few rows through the streaming kernel, more through oneDNN's sgemm
//  - kPackedFloat32 / kPackedBfloat16 / kPackedInt8: packed for oneDNN's matmul (packed_gemm.h), for
//    the products over many rows (encoder, the window's cross K/V), with bias and GELU fused
//  - kFloat16Rows / kBfloat16Rows / kInt8Rows: narrower rows for the decode step's weight streaming
//    (streaming_product.h); fp16 is exact for weights that fp16 represents (an fp16 checkpoint's),
//    and rounds the others to nearest even. Many rows (a prefill, a batched step) go across rows
//    (row_panel_product.h), which beats widening the rows for sgemm at every call (bench/levers.cc,
//    prefill_products and batched_step_products)
// Each layer counts the rows it has multiplied, so tests can prove which projections a decode step
// does (and does not) run.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/cpu/streaming_product.h"
#include "model/tensor.h"
#include "util/relaxed_counter.h"

namespace auris {

class PackedGemm;

enum class WeightFormat { kFloat32, kPackedFloat32, kPackedBfloat16, kPackedInt8, kFloat16Rows, kBfloat16Rows, kInt8Rows };

class Linear {
 public:
  Linear() = default;
  // weight [out x in]; bias [out] or empty.
  Linear(Tensor weight, Tensor bias);
  // Concatenates fp32 layers along the output axis: one GEMM computes what the parts would (fused
  // QKV, the cross-attention K/V of every decoder layer).
  static Linear concat(const std::vector<const Linear*>& parts);

  // Converts the fp32 weights to `format` and frees them. Once, at load.
  void convert(WeightFormat format);
  WeightFormat format() const { return format_; }
  // Converts to kFloat16Rows if every fp32 weight is exactly an fp16 value (true for the fp16
  // checkpoints), so that no product changes; otherwise keeps fp32 and returns false.
  bool to_fp16_rows_if_exact();

  // Up to this many rows go through the weight-streaming kernel in fp32; more through sgemm.
  static constexpr int kFewRows = 8;

  // y[rows x out] (row stride ldy) = x[rows x in] (row stride ldx) W^T + b.
  void forward(const float* x, int rows, float* y, int ldx = -1, int ldy = -1) const;
  // forward() then exact GELU; fused into the GEMM where the format allows.
  void forward_gelu(const float* x, int rows, float* y) const;
  // Row o of W in fp32 (an embedding lookup through a tied projection), whatever the format.
  void weight_row(int o, float* out) const;

  int in_features() const { return in_; }
  int out_features() const { return out_; }
  // The fp32 weights; empty once converted to another format.
  const float* weight() const { return weight_.data(); }
  const float* bias() const { return bias_.empty() ? nullptr : bias_.data(); }
  // Bytes the weights take in their current format (what a decode step streams).
  size_t weight_bytes() const;
  // Every caller's rows: threads sharing the model add to the same count.
  int64_t rows_multiplied() const { return rows_multiplied_.get(); }

 private:
  int in_ = 0;
  int out_ = 0;
  WeightFormat format_ = WeightFormat::kFloat32;
  std::vector<float> weight_;
  std::vector<float> bias_;
  std::vector<uint16_t> half_rows_;  // kFloat16Rows, kBfloat16Rows
  Int8Rows int8_rows_;
  std::shared_ptr<const PackedGemm> packed_;
  RelaxedCounter rows_multiplied_;
};

}  // namespace auris
