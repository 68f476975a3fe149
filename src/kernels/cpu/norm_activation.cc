#include "kernels/cpu/norm_activation.h"

#include <cmath>

#include "kernels/cpu/dispatched_kernels.h"
#include "kernels/cpu/simd.h"  // last: it enables the path's instructions

namespace auris::AURIS_CPU_PATH {

namespace {
// Below this many elements an OpenMP fork costs more than it saves (decode-step rows).
constexpr long kParallelElements = 1 << 15;
}  // namespace

void layer_norm(const float* x, int rows, int n, const float* gamma, const float* beta, float* y, float eps) {
  constexpr int L = simd::kLanes;
  const int vector_end = n / L * L;
#pragma omp parallel for schedule(static) if (static_cast<long>(rows) * n >= kParallelElements)
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<long>(r) * n;
    float* yr = y + static_cast<long>(r) * n;
    // Two passes in double lanes: the reference's float32 result is within rounding of this.
    simd::DoubleSum sum;
    for (int i = 0; i < vector_end; i += L) sum.add(simd::load(xr + i));
    double total = sum.total();
    for (int i = vector_end; i < n; ++i) total += xr[i];
    const double mean = total / n;
    simd::DoubleSum squares;
    for (int i = 0; i < vector_end; i += L) squares.add_squared_difference(simd::load(xr + i), mean);
    double var = squares.total();
    for (int i = vector_end; i < n; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    var /= n;
    const float inv = static_cast<float>(1.0 / std::sqrt(var + eps));
    const float m = static_cast<float>(mean);
    for (int i = 0; i < n; ++i) yr[i] = (xr[i] - m) * inv * gamma[i] + beta[i];
  }
}

void gelu_inplace(float* x, long count) {
  const long vectors = count / simd::kLanes;
#pragma omp parallel for schedule(static) if (count >= kParallelElements)
  for (long v = 0; v < vectors; ++v) simd::store(x + v * simd::kLanes, simd::gelu(simd::load(x + v * simd::kLanes)));
  for (long i = vectors * simd::kLanes; i < count; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f));
}

void add_inplace(float* y, const float* x, long count) {
#pragma omp parallel for schedule(static) if (count >= kParallelElements)
  for (long i = 0; i < count; ++i) y[i] += x[i];
}

float max_value(const float* x, long n) {
  constexpr int L = simd::kLanes;
  simd::Vec vmax = simd::set1(-INFINITY);
  long i = 0;
  for (; i + L <= n; i += L) vmax = simd::max(vmax, simd::load(x + i));
  float max = simd::reduce_max(vmax);
  for (; i < n; ++i) max = x[i] > max ? x[i] : max;
  return max;
}

long argmax(const float* x, long n) {
  if (n <= 0) return 0;
  constexpr int L = simd::kLanes;
  const float max = max_value(x, n);
  long i = 0;
  for (; i + L <= n; i += L)
    if (simd::any_equal(simd::load(x + i), max)) break;
  for (; i < n; ++i)
    if (x[i] == max) return i;
  return 0;  // every value NaN
}

ExpSum exp_from_max_inplace(float* x, int n) {
  constexpr int L = simd::kLanes;
  const float max = max_value(x, n);
  int i = 0;
  // The sum is kept in double: 1500-key rows lose nothing to rounding.
  simd::DoubleSum sums;
  const simd::Vec shift = simd::set1(max);
  for (i = 0; i + L <= n; i += L) {
    const simd::Vec e = simd::exp_nonpositive(simd::sub(simd::load(x + i), shift));
    simd::store(x + i, e);
    sums.add(e);
  }
  double sum = sums.total();
  for (; i < n; ++i) {
    x[i] = std::exp(x[i] - max);
    sum += x[i];
  }
  return {max, sum};
}

double softmax_inplace(float* x, int n) {
  constexpr int L = simd::kLanes;
  const ExpSum e = exp_from_max_inplace(x, n);
  const float inverse = static_cast<float>(1.0 / e.sum);
  int i = 0;
  for (; i + L <= n; i += L) simd::store(x + i, simd::mul(simd::load(x + i), simd::set1(inverse)));
  for (; i < n; ++i) x[i] *= inverse;
  return e.max + std::log(e.sum);
}

}  // namespace auris::AURIS_CPU_PATH
