#include "model/half_float.h"

#include <immintrin.h>

#include "kernels/cpu/cpu_path.h"

namespace auris {

namespace {

// Every path but the scalar one has F16C.
bool use_f16c() {
  static const bool f16c = cpu_path() != CpuPath::kScalar;
  return f16c;
}

__attribute__((target("avx,f16c"))) size_t fp16_to_float_f16c(const uint8_t* bytes, size_t n, float* dst) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + 2 * i))));
  return i;
}

// Converts the first multiple of 8 floats; returns how many, and whether each was an fp16 value.
__attribute__((target("avx,f16c"))) size_t float_to_fp16_f16c(const float* src, size_t n, uint16_t* dst, bool& exact) {
  __m256 differs = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(src + i);
    const __m128i h = _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
    differs = _mm256_or_ps(differs, _mm256_cmp_ps(_mm256_cvtph_ps(h), x, _CMP_NEQ_UQ));
  }
  exact = _mm256_testz_ps(differs, differs);
  return i;
}

}  // namespace

void fp16_to_float_n(const uint8_t* bytes, size_t n, float* dst) {
  size_t i = use_f16c() ? fp16_to_float_f16c(bytes, n, dst) : 0;
  for (; i < n; ++i) {
    uint16_t h;
    std::memcpy(&h, bytes + 2 * i, 2);
    dst[i] = fp16_to_float(h);
  }
}

bool float_to_fp16_exact_n(const float* src, size_t n, uint16_t* dst) {
  bool exact = true;
  size_t i = use_f16c() ? float_to_fp16_f16c(src, n, dst, exact) : 0;
  for (; i < n; ++i) {
    dst[i] = float_to_fp16(src[i]);
    exact = exact && fp16_to_float(dst[i]) == src[i];
  }
  return exact;
}

}  // namespace auris
