#include "decoding/log_softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/dispatched_kernels.h"
#include "kernels/cpu/norm_activation.h"
#include "kernels/cpu/simd.h"  // last: it enables the path's instructions

namespace auris::AURIS_CPU_PATH {

namespace {

float max_of(std::span<const float> values) { return max_value(values.data(), static_cast<long>(values.size())); }

// sum(exp(x - shift)) over the span, the exponentials in float (as torch computes them), the sum in
// double. Suppressed logits (-inf) add 0.
double sum_exp_shifted(std::span<const float> values, float shift) {
  constexpr int L = simd::kLanes;
  const simd::Vec vshift = simd::set1(shift);
  simd::DoubleSum sums;
  size_t i = 0;
  for (; i + L <= values.size(); i += L) sums.add(simd::exp_nonpositive(simd::sub(simd::load(&values[i]), vshift)));
  double sum = sums.total();
  for (; i < values.size(); ++i) sum += std::exp(values[i] - shift);
  return sum;
}

}  // namespace

double log_sum_exp(std::span<const float> values) {
  const float m = max_of(values);
  if (std::isinf(m) && m < 0) return -std::numeric_limits<double>::infinity();
  return m + std::log(sum_exp_shifted(values, m));
}

void log_softmax(std::span<const float> logits, std::span<float> out) {
  const float m = max_of(logits);
  const float log_sum = static_cast<float>(std::log(sum_exp_shifted(logits, m)));
  for (size_t i = 0; i < logits.size(); ++i) out[i] = (logits[i] - m) - log_sum;
}

float log_softmax_at(std::span<const float> logits, int index) {
  const float m = max_of(logits);
  const float log_sum = static_cast<float>(std::log(sum_exp_shifted(logits, m)));
  return (logits[index] - m) - log_sum;
}

double softmax_probability(std::span<const float> logits, int index) {
  const float m = max_of(logits);
  double sum = 0.0;
  for (float v : logits) sum += std::exp(static_cast<double>(v - m));
  return std::exp(static_cast<double>(logits[index] - m)) / sum;
}

}  // namespace auris::AURIS_CPU_PATH
