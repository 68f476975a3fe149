// A dense layer y = x W^T + b with W stored [out x in] as PyTorch stores it, multiplied through
// BLAS. Each layer counts the rows it has multiplied, so tests can prove which projections a decode
// step does (and does not) run.
#pragma once

#include <cstdint>
#include <vector>

#include "model/tensor.h"

namespace auris {

class Linear {
 public:
  Linear() = default;
  // weight [out x in]; bias [out] or empty.
  Linear(Tensor weight, Tensor bias);
  // Concatenates layers along the output axis: one GEMM computes what the parts would (fused QKV,
  // the cross-attention K/V of every decoder layer).
  static Linear concat(const std::vector<const Linear*>& parts);

  // Up to this many rows go through the weight-streaming kernel; more through BLAS GEMM.
  static constexpr int kFewRows = 8;

  // y[rows x out] (row stride ldy) = x[rows x in] (row stride ldx) W^T + b.
  void forward(const float* x, int rows, float* y, int ldx = -1, int ldy = -1) const;

  int in_features() const { return in_; }
  int out_features() const { return out_; }
  const float* weight() const { return weight_.data(); }
  const float* bias() const { return bias_.empty() ? nullptr : bias_.data(); }
  int64_t rows_multiplied() const { return rows_multiplied_; }

 private:
  int in_ = 0;
  int out_ = 0;
  std::vector<float> weight_;
  std::vector<float> bias_;
  mutable int64_t rows_multiplied_ = 0;
};

}  // namespace auris
