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

}  // namespace auris::AURIS_CPU_PATH
