#include "kernels/cpu/row_quantization.h"

#include <algorithm>
#include <cmath>

#include "kernels/cpu/dispatched_kernels.h"
#include "kernels/cpu/simd.h"  // last: it enables the path's instructions

namespace auris::AURIS_CPU_PATH {

namespace {

constexpr float kLevels = 127.0f;

// The largest magnitude, NaN left out (a NaN never compares greater).
float largest_magnitude(const float* x, int n) {
  int i = 0;
  float largest = 0.0f;
#if AURIS_SIMD_AVX2
  __m256 lanes = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) lanes = _mm256_max_ps(simd::abs(simd::load(x + i)), lanes);  // NaN: keeps lanes
  largest = simd::reduce_max(lanes);
#endif
  for (; i < n; ++i) {
    const float m = std::fabs(x[i]);
    largest = m > largest ? m : largest;
  }
  return largest;
}

#if AURIS_SIMD_AVX2
// 32 int32 lanes (each within a byte's range) to 32 bytes in order; packs work within 128-bit halves.
inline __m256i bytes_in_order(__m256i a, __m256i b, __m256i c, __m256i d, bool is_unsigned) {
  const __m256i ab = _mm256_packs_epi32(a, b), cd = _mm256_packs_epi32(c, d);
  const __m256i packed = is_unsigned ? _mm256_packus_epi16(ab, cd) : _mm256_packs_epi16(ab, cd);
  return _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}
#endif

}  // namespace

float quantize_row_shifted(const float* x, int n, uint8_t* q) {
  const float scale = largest_magnitude(x, n) / kLevels;
  const float inverse = scale > 0.0f ? 1.0f / scale : 0.0f;
  int i = 0;
#if AURIS_SIMD_AVX2
  const __m256 inv = _mm256_set1_ps(inverse), lo = _mm256_set1_ps(-kLevels), hi = _mm256_set1_ps(kLevels);
  const __m256 half = _mm256_set1_ps(0.5f), sign = _mm256_set1_ps(-0.0f);
  auto level = [&](const float* p) {
    const __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(simd::load(p), inv), lo), hi);  // NaN: lo
    const __m256 rounded = _mm256_add_ps(v, _mm256_or_ps(_mm256_and_ps(v, sign), half));
    return _mm256_add_epi32(_mm256_cvttps_epi32(rounded), _mm256_set1_epi32(128));
  };
  for (; i + 32 <= n; i += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i),
                        bytes_in_order(level(x + i), level(x + i + 8), level(x + i + 16), level(x + i + 24), true));
#endif
  for (; i < n; ++i) {
    const float scaled = x[i] * inverse;
    const float v = std::min(kLevels, scaled > -kLevels ? scaled : -kLevels);  // NaN: -kLevels
    q[i] = static_cast<uint8_t>(static_cast<int>(v + std::copysign(0.5f, v)) + 128);
  }
  return scale;
}

float quantize_row_symmetric(const float* x, int n, int8_t* q) {
  const float largest = largest_magnitude(x, n);
  const float inverse = largest > 0.0f ? kLevels / largest : 0.0f;
  int i = 0;
#if AURIS_SIMD_AVX2
  const __m256 inv = _mm256_set1_ps(inverse), lo = _mm256_set1_ps(-kLevels), hi = _mm256_set1_ps(kLevels);
  auto level = [&](const float* p) {
    const __m256 v = simd::round_nearest(_mm256_mul_ps(simd::load(p), inv));
    return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(v, lo), hi));  // NaN: lo
  };
  for (; i + 32 <= n; i += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i),
                        bytes_in_order(level(x + i), level(x + i + 8), level(x + i + 16), level(x + i + 24), false));
#endif
  for (; i < n; ++i) {
    const float v = std::nearbyint(x[i] * inverse);
    q[i] = static_cast<int8_t>(std::min(kLevels, v > -kLevels ? v : -kLevels));  // NaN: -kLevels
  }
  return largest / kLevels;
}

float quantize_weight_row_7bit(const float* w, int n, int8_t* q, int32_t* sum) {
  constexpr float kWeightLevels = 63.0f;
  // Adding and taking off 1.5 * 2^23 rounds |level| <= 63 to nearest, halves to even, as nearbyint
  // does in the default rounding mode, in vectors and without a library call.
  constexpr float kRound = 12582912.0f;
  const float scale = largest_magnitude(w, n) / kWeightLevels;
  int32_t total = 0;
  if (!(scale > 0.0f)) {
    std::fill_n(q, n, 0);
    *sum = 0;
    return scale;
  }
  int i = 0;
#if AURIS_SIMD_AVX2
  const __m256 divisor = _mm256_set1_ps(scale), lo = _mm256_set1_ps(-kWeightLevels), hi = _mm256_set1_ps(kWeightLevels);
  const __m256 round = _mm256_set1_ps(kRound);
  __m256i sums = _mm256_setzero_si256();
  auto level = [&](const float* p) {  // the division as the definition's, not a multiplication
    const __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_div_ps(simd::load(p), divisor), lo), hi);  // NaN: lo
    const __m256i l = _mm256_cvttps_epi32(_mm256_sub_ps(_mm256_add_ps(v, round), round));
    sums = _mm256_add_epi32(sums, l);
    return l;
  };
  for (; i + 32 <= n; i += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i),
                        bytes_in_order(level(w + i), level(w + i + 8), level(w + i + 16), level(w + i + 24), false));
  total = simd::reduce_add(sums);
#endif
  for (; i < n; ++i) {
    const float level = std::min(kWeightLevels, std::max(-kWeightLevels, w[i] / scale));
    q[i] = static_cast<int8_t>((level + kRound) - kRound);
    total += q[i];
  }
  *sum = total;
  return scale;
}

float quantize_row_int16(const float* x, int n, int16_t* q) {
  const float largest = largest_magnitude(x, n);
  const float scale = largest > 0.0f ? largest / 16383.0f : 1.0f;
  const float inverse = 1.0f / scale;
  int i = 0;
#if AURIS_SIMD_AVX2
  const __m256 inv = _mm256_set1_ps(inverse);
  for (; i + 16 <= n; i += 16) {  // cvtps rounds as lrint does: to nearest, halves to even
    const __m256i lo = _mm256_cvtps_epi32(_mm256_mul_ps(simd::load(x + i), inv));
    const __m256i hi = _mm256_cvtps_epi32(_mm256_mul_ps(simd::load(x + i + 8), inv));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8));
  }
#endif
  for (; i < n; ++i) q[i] = static_cast<int16_t>(std::lrint(x[i] * inverse));
  return scale;
}

void dequantize_row(const int32_t* sums, const int32_t* offsets, const float* column_scales, float row_scale,
                    const float* bias, int n, float* y) {
  int o = 0;
#if AURIS_SIMD_AVX2
  const __m256 rs = _mm256_set1_ps(row_scale);
  for (; o + 8 <= n; o += 8) {
    const __m256i s = _mm256_sub_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + o)),
                                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(offsets + o)));
    __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(s), _mm256_mul_ps(rs, simd::load(column_scales + o)));
    __asm__("" : "+x"(v));  // the product rounded before the bias is added, as on every path: no FMA
    if (bias) v = _mm256_add_ps(v, simd::load(bias + o));
    simd::store(y + o, v);
  }
#endif
  for (; o < n; ++o) {
    float v = static_cast<float>(sums[o] - offsets[o]) * (row_scale * column_scales[o]);
#if AURIS_SIMD_AVX2
    __asm__("" : "+x"(v));
#endif
    y[o] = bias ? v + bias[o] : v;
  }
}

}  // namespace auris::AURIS_CPU_PATH
