#include "kernels/cpu/linear.h"

#include <dnnl.h>

#include <algorithm>
#include <cstring>

#include "auris/error.h"
#include "kernels/cpu/norm_activation.h"
#include "kernels/cpu/packed_gemm.h"
#include "model/half_float.h"
#include "util/huge_pages.h"

namespace auris {

namespace {

// y = x W^T + b through oneDNN's sgemm, W fp32 [out x in].
void sgemm_with_bias(const float* x, int rows, int ldx, const float* w, int in, int out, const float* bias, float* y,
                     int ldy) {
  if (bias) {
    for (int r = 0; r < rows; ++r) std::memcpy(y + static_cast<size_t>(r) * ldy, bias, sizeof(float) * out);
  }
  dnnl_sgemm('N', 'T', rows, out, in, 1.0f, x, ldx, w, in, bias ? 1.0f : 0.0f, y, ldy);
}

}  // namespace

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
    if (p->format_ != WeightFormat::kFloat32) throw Error("only fp32 linear layers can be fused");
    if (fused.in_ == 0) fused.in_ = p->in_;
    if (p->in_ != fused.in_) throw Error("cannot fuse linear layers of different input widths");
    fused.out_ += p->out_;
    any_bias = any_bias || !p->bias_.empty();
  }
  reserve_on_huge_pages(fused.weight_, static_cast<size_t>(fused.out_) * fused.in_);
  for (const Linear* p : parts) fused.weight_.insert(fused.weight_.end(), p->weight_.begin(), p->weight_.end());
  if (any_bias) {
    fused.bias_.reserve(fused.out_);
    for (const Linear* p : parts) {
      if (p->bias_.empty())
        fused.bias_.insert(fused.bias_.end(), p->out_, 0.0f);
      else
        fused.bias_.insert(fused.bias_.end(), p->bias_.begin(), p->bias_.end());
    }
  }
  return fused;
}

bool Linear::to_fp16_rows_if_exact() {
  if (format_ != WeightFormat::kFloat32) return false;
  resize_on_huge_pages(half_rows_, weight_.size());
  if (!float_to_fp16_exact_n(weight_.data(), weight_.size(), half_rows_.data())) {
    std::vector<uint16_t>().swap(half_rows_);
    return false;
  }
  format_ = WeightFormat::kFloat16Rows;
  std::vector<float>().swap(weight_);
  return true;
}

void Linear::convert(WeightFormat format) {
  if (format == format_) return;
  if (format_ != WeightFormat::kFloat32) throw Error("linear weights can be converted once, from fp32");
  switch (format) {
    case WeightFormat::kFloat32: break;
    case WeightFormat::kPackedFloat32:
      packed_ = std::make_shared<PackedGemm>(weight_.data(), out_, in_, bias_, GemmPrecision::kFloat32);
      break;
    case WeightFormat::kPackedBfloat16:
      packed_ = std::make_shared<PackedGemm>(weight_.data(), out_, in_, bias_, GemmPrecision::kBfloat16);
      break;
    case WeightFormat::kPackedInt8:
      packed_ = std::make_shared<PackedGemm>(weight_.data(), out_, in_, bias_, GemmPrecision::kInt8);
      break;
    case WeightFormat::kFloat16Rows:  // rounded to nearest even (exact for an fp16 checkpoint)
      resize_on_huge_pages(half_rows_, weight_.size());
      float_to_fp16_exact_n(weight_.data(), weight_.size(), half_rows_.data());
      break;
    case WeightFormat::kBfloat16Rows:
      resize_on_huge_pages(half_rows_, weight_.size());
      std::transform(weight_.begin(), weight_.end(), half_rows_.begin(), float_to_bf16);
      break;
    case WeightFormat::kInt8Rows:
      int8_rows_ = quantize_int8_rows(weight_.data(), out_, in_);
      break;
  }
  format_ = format;
  std::vector<float>().swap(weight_);
}

size_t Linear::weight_bytes() const {
  switch (format_) {
    case WeightFormat::kFloat32: return weight_.size() * sizeof(float);
    case WeightFormat::kPackedFloat32: return static_cast<size_t>(out_) * in_ * sizeof(float);
    case WeightFormat::kPackedInt8: return static_cast<size_t>(out_) * in_ + static_cast<size_t>(out_) * sizeof(float);
    case WeightFormat::kPackedBfloat16:
    case WeightFormat::kFloat16Rows:
    case WeightFormat::kBfloat16Rows: return static_cast<size_t>(out_) * in_ * sizeof(uint16_t);
    case WeightFormat::kInt8Rows: return int8_rows_.values.size() + int8_rows_.scales.size() * sizeof(float);
  }
  return 0;
}

void Linear::forward(const float* x, int rows, float* y, int ldx, int ldy) const {
  if (ldx < 0) ldx = in_;
  if (ldy < 0) ldy = out_;
  rows_multiplied_.add(rows);
  if (rows == 0) return;
  const StreamingOutput out{bias(), y, ldy};
  switch (format_) {
    case WeightFormat::kPackedFloat32:
    case WeightFormat::kPackedBfloat16:
    case WeightFormat::kPackedInt8: return packed_->forward(x, rows, ldx, y, ldy, /*gelu=*/false);
    case WeightFormat::kFloat16Rows: return stream_product_f16(x, rows, ldx, half_rows_.data(), in_, out_, out);
    case WeightFormat::kBfloat16Rows: return stream_product_bf16(x, rows, ldx, half_rows_.data(), in_, out_, out);
    case WeightFormat::kInt8Rows: return stream_product_int8(x, rows, ldx, int8_rows_, in_, out_, out);
    case WeightFormat::kFloat32: break;
  }
  if (rows <= kFewRows) return stream_product_f32(x, rows, ldx, weight_.data(), in_, out_, out);
  sgemm_with_bias(x, rows, ldx, weight_.data(), in_, out_, bias(), y, ldy);
}

void Linear::forward_gelu(const float* x, int rows, float* y) const {
  if (packed_) {
    rows_multiplied_.add(rows);
    return packed_->forward(x, rows, in_, y, out_, /*gelu=*/true);
  }
  forward(x, rows, y);
  gelu_inplace(y, static_cast<long>(rows) * out_);
}

void Linear::weight_row(int o, float* out) const {
  const size_t at = static_cast<size_t>(o) * in_;
  switch (format_) {
    case WeightFormat::kFloat32: std::memcpy(out, weight_.data() + at, sizeof(float) * in_); return;
    case WeightFormat::kFloat16Rows:
      for (int i = 0; i < in_; ++i) out[i] = fp16_to_float(half_rows_[at + i]);
      return;
    case WeightFormat::kBfloat16Rows:
      for (int i = 0; i < in_; ++i) out[i] = bf16_to_float(half_rows_[at + i]);
      return;
    case WeightFormat::kInt8Rows:
      for (int i = 0; i < in_; ++i) out[i] = int8_rows_.values[at + i] * int8_rows_.scales[o];
      return;
    case WeightFormat::kPackedFloat32:
    case WeightFormat::kPackedBfloat16:
    case WeightFormat::kPackedInt8: break;
  }
  throw Error("packed GEMM weights cannot be read back by row");
}

}  // namespace auris
