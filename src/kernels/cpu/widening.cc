#include "kernels/cpu/widening.h"

#include "kernels/cpu/dispatched_kernels.h"
#include "model/half_float.h"
#include "kernels/cpu/simd.h"  // last: it enables the path's instructions

namespace auris::AURIS_CPU_PATH {

void widen_bf16(const uint16_t* src, long n, float* dst) {
  constexpr int L = simd::kLanes;
  long i = 0;
  for (; i + L <= n; i += L) simd::store(dst + i, simd::load_bf16(src + i));
  for (; i < n; ++i) dst[i] = bf16_to_float(src[i]);
}

void dequantize_int8_rows(const int8_t* values, const float* scales, int first, int rows, int in, float* dst) {
  constexpr int L = simd::kLanes;
  for (int o = first; o < first + rows; ++o) {
    const int8_t* src = values + static_cast<long>(o) * in;
    float* row = dst + static_cast<long>(o) * in;
    const simd::Vec scale = simd::set1(scales[o]);
    int i = 0;
    for (; i + L <= in; i += L) simd::store(row + i, simd::mul(simd::load_int8(src + i), scale));
    for (; i < in; ++i) row[i] = static_cast<float>(src[i]) * scales[o];
  }
}

}  // namespace auris::AURIS_CPU_PATH
