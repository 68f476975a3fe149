#include "kernels/cpu/packed_gemm.h"

#include <dnnl.hpp>

#include <string>

#include "auris/error.h"
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

dt element_type(GemmPrecision p) { return p == GemmPrecision::kBfloat16 ? dt::bf16 : dt::f32; }

// rows is a runtime dimension: one primitive serves every row count, and the weights' packed layout
// does not depend on it.
dnnl::matmul::primitive_desc make_desc(int in, int out, bool has_bias, bool gelu, GemmPrecision p) {
  const memory::desc src({DNNL_RUNTIME_DIM_VAL, in}, element_type(p), {DNNL_RUNTIME_DIM_VAL, 1});
  const memory::desc weights({in, out}, element_type(p), memory::format_tag::any);
  const memory::desc dst({DNNL_RUNTIME_DIM_VAL, out}, dt::f32, {DNNL_RUNTIME_DIM_VAL, 1});
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
  // The plain product and the one with GELU fused, each made on first use.
  mutable std::once_flag made[2];
  mutable std::unique_ptr<dnnl::matmul> matmul[2];
};

bool PackedGemm::supported(GemmPrecision precision) {
  static const bool bf16 = [] {
    try {
      make_desc(64, 64, false, false, GemmPrecision::kBfloat16);
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return precision == GemmPrecision::kFloat32 || bf16;
}

PackedGemm::PackedGemm(const float* weight, int out, int in, const std::vector<float>& bias, GemmPrecision precision)
    : out_(out), in_(in), precision_(precision), state_(std::make_unique<State>()) {
  try {
    state_->has_bias = !bias.empty();
    const auto desc = make_desc(in, out, state_->has_bias, false, precision);
    // W [out x in] row-major is the matmul's [in x out] weights with strides {1, in}: "ba".
    memory plain({{in, out}, dt::f32, memory::format_tag::ba}, cpu_engine(), const_cast<float*>(weight));
    state_->weights = memory(desc.weights_desc(), cpu_engine());
    advise_huge_pages(state_->weights.get_data_handle(), desc.weights_desc().get_size());
    dnnl::stream stream(cpu_engine());
    dnnl::reorder(plain, state_->weights).execute(stream, plain, state_->weights);
    if (state_->has_bias) {
      state_->bias = memory({{1, out}, dt::f32, memory::format_tag::ab}, cpu_engine());
      std::copy(bias.begin(), bias.end(), static_cast<float*>(state_->bias.get_data_handle()));
    }
    stream.wait();
  } catch (const dnnl::error& e) {
    throw Error(std::string("oneDNN has no ") + (precision == GemmPrecision::kBfloat16 ? "bfloat16" : "float32") +
                " matrix product for this CPU (" + e.what() + "): use --compute-type float32");
  }
}

PackedGemm::~PackedGemm() = default;

void PackedGemm::forward(const float* x, int rows, int ldx, float* y, int ldy, bool gelu) const {
  if (rows == 0) return;
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

}  // namespace auris
