#include "kernels/cpu/norm_activation.h"

#include <cmath>

namespace auris {

void layer_norm(const float* x, int rows, int n, const float* gamma, const float* beta, float* y, float eps) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<long>(r) * n;
    float* yr = y + static_cast<long>(r) * n;
    // Two passes in double: the reference's float32 result is within rounding of this.
    double mean = 0.0;
    for (int i = 0; i < n; ++i) mean += xr[i];
    mean /= n;
    double var = 0.0;
    for (int i = 0; i < n; ++i) {
      double d = xr[i] - mean;
      var += d * d;
    }
    var /= n;
    const float inv = static_cast<float>(1.0 / std::sqrt(var + eps));
    const float m = static_cast<float>(mean);
    for (int i = 0; i < n; ++i) yr[i] = (xr[i] - m) * inv * gamma[i] + beta[i];
  }
}

void gelu_inplace(float* x, long count) {
  for (long i = 0; i < count; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * 0.70710678118654752f));
}

void add_inplace(float* y, const float* x, long count) {
  for (long i = 0; i < count; ++i) y[i] += x[i];
}

void softmax_inplace(float* x, int n) {
  float max = -INFINITY;
  for (int i = 0; i < n; ++i) max = x[i] > max ? x[i] : max;
  double sum = 0.0;
  for (int i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - max);
    sum += x[i];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int i = 0; i < n; ++i) x[i] *= inv;
}

}  // namespace auris
