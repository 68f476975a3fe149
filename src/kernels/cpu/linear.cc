#include "kernels/cpu/linear.h"

#include <cblas.h>

#include <algorithm>
#include <cstring>

#include "auris/error.h"
#include "kernels/cpu/dot_product.h"

namespace auris {

Linear::Linear(Tensor weight, Tensor bias) {
  if (weight.rank() != 2) throw Error("linear weight must be 2-D, got " + weight.shape_string());
  out_ = static_cast<int>(weight.dim(0));
  in_ = static_cast<int>(weight.dim(1));
  if (bias.numel() != 0 && bias.numel() != out_)
    throw Error("linear bias has " + std::to_string(bias.numel()) + " values for " + std::to_string(out_) + " outputs");
  weight_ = std::move(weight.data);
  bias_ = std::move(bias.data);
}

Linear Linear::concat(const std::vector<const Linear*>& parts) {
  Linear fused;
  bool any_bias = false;
  for (const Linear* p : parts) {
    if (fused.in_ == 0) fused.in_ = p->in_;
    if (p->in_ != fused.in_) throw Error("cannot fuse linear layers of different input widths");
    fused.out_ += p->out_;
    any_bias = any_bias || !p->bias_.empty();
  }
  fused.weight_.reserve(static_cast<size_t>(fused.out_) * fused.in_);
  for (const Linear* p : parts) fused.weight_.insert(fused.weight_.end(), p->weight_.begin(), p->weight_.end());
  if (any_bias) {
    for (const Linear* p : parts) {
      if (p->bias_.empty())
        fused.bias_.insert(fused.bias_.end(), static_cast<size_t>(p->out_), 0.0f);  // e.g. the bias-free key
      else
        fused.bias_.insert(fused.bias_.end(), p->bias_.begin(), p->bias_.end());
    }
  }
  return fused;
}

namespace {


// A decode step multiplies a handful of rows (one per beam) by a large weight matrix: the cost is
// reading the weights, so each weight row is read once and used for every input row while it sits
// in L1. OpenBLAS's gemv/gemm were slower on these shapes when we timed them; the CPU benchmark
// (bench/, the speed issue) is where that comparison belongs.
void few_rows_product(const float* x, int rows, int ldx, const float* weight, int in, int out, const float* bias,
                      float* y, int ldy) {
  for (int o = 0; o < out; ++o) {
    const float* w = weight + static_cast<size_t>(o) * in;
    const float b = bias ? bias[o] : 0.0f;
    for (int r = 0; r < rows; ++r) y[static_cast<size_t>(r) * ldy + o] = dot_product(w, x + static_cast<size_t>(r) * ldx, in) + b;
  }
}

}  // namespace

void Linear::forward(const float* x, int rows, float* y, int ldx, int ldy) const {
  if (ldx < 0) ldx = in_;
  if (ldy < 0) ldy = out_;
  rows_multiplied_ += rows;
  if (rows == 0) return;
  if (rows <= kFewRows) return few_rows_product(x, rows, ldx, weight_.data(), in_, out_, bias(), y, ldy);
  if (!bias_.empty()) {
    for (int r = 0; r < rows; ++r) std::memcpy(y + static_cast<size_t>(r) * ldy, bias_.data(), sizeof(float) * out_);
  }
  const float beta = bias_.empty() ? 0.0f : 1.0f;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, out_, in_, 1.0f, x, ldx, weight_.data(), in_, beta, y, ldy);
}

}  // namespace auris
