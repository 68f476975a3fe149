#include "kernels/cpu/lstm_cell.h"

#include <cmath>

#include "kernels/cpu/dispatched_kernels.h"
#include "kernels/cpu/simd.h"  // last: it enables the path's instructions

namespace auris::AURIS_CPU_PATH {
namespace {

// 1 / (1 + e^-x) from e^-|x|, which cannot overflow: for x < 0 it is e^x / (1 + e^x).
simd::Vec sigmoid(simd::Vec x) {
  const simd::Vec e = simd::exp_nonpositive(simd::mul(simd::abs(x), simd::set1(-1.0f)));
  const simd::Vec r = simd::div(simd::set1(1.0f), simd::add(simd::set1(1.0f), e));
  return simd::select_below(x, 0.0f, simd::mul(e, r), r);
}

// tanh(|x|) = (1 - e^-2|x|) / (1 + e^-2|x|), the sign put back; absolute error a few 1e-8.
simd::Vec tanh(simd::Vec x) {
  const simd::Vec e = simd::exp_nonpositive(simd::mul(simd::abs(x), simd::set1(-2.0f)));
  const simd::Vec t = simd::div(simd::sub(simd::set1(1.0f), e), simd::add(simd::set1(1.0f), e));
  return simd::select_below(x, 0.0f, simd::mul(t, simd::set1(-1.0f)), t);
}

float sigmoid_scalar(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

void lstm_cell(float* gates, const float* hidden_weights, int hidden, float* h, float* c) {
  constexpr int L = simd::kLanes;
  constexpr int kBlock = 8 * L;  // gates summed in registers over every h[j]
  const int n = 4 * hidden;
  int g = 0;
  for (; g + kBlock <= n; g += kBlock) {
    simd::Vec acc[8];
    for (int v = 0; v < 8; ++v) acc[v] = simd::load(gates + g + v * L);
    for (int j = 0; j < hidden; ++j) {
      const simd::Vec hj = simd::set1(h[j]);
      const float* w = hidden_weights + static_cast<long>(j) * n + g;
      for (int v = 0; v < 8; ++v) acc[v] = simd::fmadd(simd::load(w + v * L), hj, acc[v]);
    }
    for (int v = 0; v < 8; ++v) simd::store(gates + g + v * L, acc[v]);
  }
  for (; g < n; ++g)
    for (int j = 0; j < hidden; ++j) gates[g] += hidden_weights[static_cast<long>(j) * n + g] * h[j];

  const float* in = gates;
  const float* forget = gates + hidden;
  const float* cell = gates + 2 * hidden;
  const float* out = gates + 3 * hidden;
  int k = 0;
  for (; k + L <= hidden; k += L) {
    const simd::Vec ck = simd::fmadd(sigmoid(simd::load(forget + k)), simd::load(c + k),
                                     simd::mul(sigmoid(simd::load(in + k)), tanh(simd::load(cell + k))));
    simd::store(c + k, ck);
    simd::store(h + k, simd::mul(sigmoid(simd::load(out + k)), tanh(ck)));
  }
  for (; k < hidden; ++k) {
    c[k] = sigmoid_scalar(forget[k]) * c[k] + sigmoid_scalar(in[k]) * std::tanh(cell[k]);
    h[k] = sigmoid_scalar(out[k]) * std::tanh(c[k]);
  }
}

}  // namespace auris::AURIS_CPU_PATH
