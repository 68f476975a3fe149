#include "kernels/cpu/linear.h"

#include <cblas.h>

#include <algorithm>
#include <cstring>

#include "auris/error.h"

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

void Linear::forward(const float* x, int rows, float* y, int ldx, int ldy) const {
  if (ldx < 0) ldx = in_;
  if (ldy < 0) ldy = out_;
  rows_multiplied_ += rows;
  if (rows == 0) return;
  if (!bias_.empty()) {
    for (int r = 0; r < rows; ++r) std::memcpy(y + static_cast<size_t>(r) * ldy, bias_.data(), sizeof(float) * out_);
  }
  const float beta = bias_.empty() ? 0.0f : 1.0f;
  if (rows == 1) {
    cblas_sgemv(CblasRowMajor, CblasNoTrans, out_, in_, 1.0f, weight_.data(), in_, x, 1, beta, y, 1);
  } else {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, out_, in_, 1.0f, x, ldx, weight_.data(), in_, beta, y,
                ldy);
  }
}

}  // namespace auris
