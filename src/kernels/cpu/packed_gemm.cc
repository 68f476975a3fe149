#include "kernels/cpu/packed_gemm.h"

#include <dnnl.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "auris/error.h"
#include "kernels/cpu/cpu_path.h"
#include "kernels/cpu/norm_activation.h"
#include "kernels/cpu/row_quantization.h"
#include "model/half_float.h"
#include "util/huge_pages.h"

namespace auris {

namespace {

using dnnl::memory;
using dt = memory::data_type;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// Activations are stored as unsigned bytes, shifted by this much (oneDNN's AVX2 kernels take u8 x s8):
// quantize_row_shifted's offset.
constexpr int kActivationShift = 128;

dt source_type(GemmPrecision p) {
  return p == GemmPrecision::kBfloat16 ? dt::bf16 : p == GemmPrecision::kInt8 ? dt::u8 : dt::f32;
}
dt weight_type(GemmPrecision p) {
  return p == GemmPrecision::kBfloat16 ? dt::bf16 : p == GemmPrecision::kInt8 ? dt::s8 : dt::f32;
}
const char* precision_name(GemmPrecision p) {
  return p == GemmPrecision::kBfloat16 ? "bfloat16" : p == GemmPrecision::kInt8 ? "int8" : "float32";
}

// rows is a runtime dimension: one primitive serves every row count, and the weights' packed layout
// does not depend on it. kInt8 leaves the bias and GELU to its own epilogue (the scales are per row
// and per output, which oneDNN's output scales are not).
dnnl::matmul::primitive_desc make_desc(int in, int out, bool has_bias, bool gelu, GemmPrecision p) {
  const bool int8 = p == GemmPrecision::kInt8;
  const memory::desc src({DNNL_RUNTIME_DIM_VAL, in}, source_type(p), {DNNL_RUNTIME_DIM_VAL, 1});
  const memory::desc weights({in, out}, weight_type(p), memory::format_tag::any);
  const memory::desc dst({DNNL_RUNTIME_DIM_VAL, out}, int8 ? dt::s32 : dt::f32, {DNNL_RUNTIME_DIM_VAL, 1});
  if (int8) return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, dst), cpu_engine());
  const memory::desc bias = has_bias ? memory::desc({1, out}, dt::f32, memory::format_tag::ab) : memory::desc();
  dnnl::primitive_attr attr;
  if (gelu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(src, weights, bias, dst), attr, cpu_engine());
}

}  // namespace

struct PackedGemm::State {
  memory weights;
  memory bias;
  bool has_bias = false;
  // kInt8: each output's weight scale, and kActivationShift times the sum of its integer weights
  // (what the shift of the activations adds to each output, taken off again).
  std::vector<float> weight_scales;
  std::vector<int32_t> shift_sums;
  std::vector<float> bias_values;
  // The plain product and the one with GELU fused, each made on first use.
  mutable std::once_flag made[2];
  mutable std::unique_ptr<dnnl::matmul> matmul[2];
};

bool PackedGemm::supported(GemmPrecision precision) {
  auto probe = [](GemmPrecision p) {
    try {
      make_desc(64, 64, false, false, p);
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  };
  static const bool bf16 = probe(GemmPrecision::kBfloat16);
  static const bool int8 = probe(GemmPrecision::kInt8);
  return precision == GemmPrecision::kFloat32 || (precision == GemmPrecision::kBfloat16 ? bf16 : int8);
}

PackedGemm::PackedGemm(const float* weight, int out, int in, const std::vector<float>& bias, GemmPrecision precision)
    : out_(out), in_(in), precision_(precision), state_(std::make_unique<State>()) {
  // forward() calls the dispatched kernels inside parallel regions, where a bad $AURIS_CPU_PATH
  // would terminate the process: choosing the path here makes it an exception.
  cpu_path();
  try {
    state_->has_bias = !bias.empty();
    const auto desc = make_desc(in, out, state_->has_bias, false, precision);
    state_->weights = memory(desc.weights_desc(), cpu_engine());
    advise_huge_pages(state_->weights.get_data_handle(), desc.weights_desc().get_size());
    dnnl::stream stream(cpu_engine());
    // W [out x in] row-major is the matmul's [in x out] weights with strides {1, in}: "ba".
    if (precision == GemmPrecision::kInt8) {
      std::vector<int8_t> quantized(static_cast<size_t>(out) * in);
      state_->weight_scales.resize(out);
      state_->shift_sums.resize(out);
#pragma omp parallel for schedule(static)  // at load: each output's row on its own
      for (int o = 0; o < out; ++o) {
        int32_t sum = 0;
        state_->weight_scales[o] =
            quantize_weight_row_7bit(weight + static_cast<size_t>(o) * in, in, quantized.data() + static_cast<size_t>(o) * in, &sum);
        state_->shift_sums[o] = kActivationShift * sum;
      }
      state_->bias_values = bias;
      memory plain({{in, out}, dt::s8, memory::format_tag::ba}, cpu_engine(), quantized.data());
      dnnl::reorder(plain, state_->weights).execute(stream, plain, state_->weights);
    } else {
      memory plain({{in, out}, dt::f32, memory::format_tag::ba}, cpu_engine(), const_cast<float*>(weight));
      dnnl::reorder(plain, state_->weights).execute(stream, plain, state_->weights);
      if (state_->has_bias) {
        state_->bias = memory({{1, out}, dt::f32, memory::format_tag::ab}, cpu_engine());
        std::copy(bias.begin(), bias.end(), static_cast<float*>(state_->bias.get_data_handle()));
      }
    }
    stream.wait();
  } catch (const dnnl::error& e) {
    throw Error(std::string("oneDNN has no ") + precision_name(precision) + " matrix product for this CPU (" + e.what() +
                "): use compute type \"float32\"");
  }
}

PackedGemm::~PackedGemm() = default;

void PackedGemm::forward(const float* x, int rows, int ldx, float* y, int ldy, bool gelu) const {
  if (rows == 0) return;
  if (precision_ == GemmPrecision::kInt8) return forward_int8(x, rows, ldx, y, ldy, gelu);
  const State& s = *state_;
  std::call_once(s.made[gelu], [&] {
    s.matmul[gelu] = std::make_unique<dnnl::matmul>(make_desc(in_, out_, s.has_bias, gelu, precision_));
  });
  memory src;
  thread_local std::vector<uint16_t> x_bf16;
  if (precision_ == GemmPrecision::kBfloat16) {
    x_bf16.resize(static_cast<size_t>(rows) * in_);
    uint16_t* xb = x_bf16.data();
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; ++r)
      for (int i = 0; i < in_; ++i) xb[static_cast<size_t>(r) * in_ + i] = float_to_bf16(x[static_cast<size_t>(r) * ldx + i]);
    src = memory({{rows, in_}, dt::bf16, {in_, 1}}, cpu_engine(), xb);
  } else {
    src = memory({{rows, in_}, dt::f32, {ldx, 1}}, cpu_engine(), const_cast<float*>(x));
  }
  memory dst({{rows, out_}, dt::f32, {ldy, 1}}, cpu_engine(), y);
  dnnl::stream stream(cpu_engine());
  std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, s.weights}, {DNNL_ARG_DST, dst}};
  if (s.has_bias) args.insert({DNNL_ARG_BIAS, s.bias});
  s.matmul[gelu]->execute(stream, args);
  stream.wait();
}

void PackedGemm::forward_int8(const float* x, int rows, int ldx, float* y, int ldy, bool gelu) const {
  const State& s = *state_;
  std::call_once(s.made[0], [&] { s.matmul[0] = std::make_unique<dnnl::matmul>(make_desc(in_, out_, false, false, precision_)); });
  thread_local std::vector<uint8_t> quantized;
  thread_local std::vector<float> row_scales;
  thread_local std::vector<int32_t> sums;
  quantized.resize(static_cast<size_t>(rows) * in_);
  row_scales.resize(rows);
  sums.resize(static_cast<size_t>(rows) * out_);
  uint8_t* q = quantized.data();
  float* scales = row_scales.data();
  const int in = in_;
#pragma omp parallel for schedule(static)
  for (int r = 0; r < rows; ++r) scales[r] = quantize_row_shifted(x + static_cast<size_t>(r) * ldx, in, q + static_cast<size_t>(r) * in);
  memory src({{rows, in_}, dt::u8, {in_, 1}}, cpu_engine(), q);
  memory dst({{rows, out_}, dt::s32, {out_, 1}}, cpu_engine(), sums.data());
  dnnl::stream stream(cpu_engine());
  s.matmul[0]->execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, s.weights}, {DNNL_ARG_DST, dst}});
  stream.wait();
  const int32_t* acc = sums.data();
  const int out = out_;
#pragma omp parallel for schedule(static)
  for (int r = 0; r < rows; ++r) {
    float* yr = y + static_cast<size_t>(r) * ldy;
    dequantize_row(acc + static_cast<size_t>(r) * out, s.shift_sums.data(), s.weight_scales.data(), scales[r],
                   s.has_bias ? s.bias_values.data() : nullptr, out, yr);
    if (gelu) gelu_inplace(yr, out);
  }
}

}  // namespace auris
