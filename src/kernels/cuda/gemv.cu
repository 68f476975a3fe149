#include <string>

#include "auris/error.h"
#include "kernels/cuda/kernels.h"
#include "kernels/cuda/numeric.cuh"

namespace auris::cuda {

namespace {

constexpr int kWarps = 8;

// One warp per output column o: its lanes stride over the weight row 8 values at a time (each lane's
// loads independent, so several are in flight), every one of the R rows of x taking the same weights.
template <typename T, int R>
__global__ void __launch_bounds__(kWarps * 32)
    gemv_kernel(const T* x, int rows, int in, int ldx, const T* w, int out, const float* bias, bool gelu_after, T* y,
                int ldy) {
  const int o = blockIdx.x * kWarps + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (o >= out) return;
  const T* wo = w + static_cast<size_t>(o) * in;
  float acc[R] = {};
#pragma unroll 4
  for (int i = 8 * lane; i < in; i += 8 * 32) {
    float wv[8];
    load8(wo + i, wv);
    for (int r = 0; r < R; ++r) {
      if (r >= rows) break;
      float xv[8];
      load8(x + static_cast<size_t>(r) * ldx + i, xv);
      for (int k = 0; k < 8; ++k) acc[r] += wv[k] * xv[k];
    }
  }
  for (int r = 0; r < R; ++r) acc[r] = warp_sum(acc[r]);
  if (lane != 0) return;
  const float b = bias ? bias[o] : 0.0f;
  for (int r = 0; r < R && r < rows; ++r) {
    const float v = acc[r] + b;
    y[static_cast<size_t>(r) * ldy + o] = from_float<T>(gelu_after ? gelu(v) : v);
  }
}

template <typename T, int R>
void launch(const T* x, int rows, int in, int ldx, const T* w, int out, const float* bias, bool gelu_after, T* y, int ldy,
            cudaStream_t s) {
  gemv_kernel<T, R><<<(out + kWarps - 1) / kWarps, kWarps * 32, 0, s>>>(x, rows, in, ldx, w, out, bias, gelu_after, y, ldy);
}

}  // namespace

template <typename T>
void gemv(const T* x, int rows, int in, int ldx, const T* w, int out, const float* bias, bool gelu_after, T* y, int ldy,
          cudaStream_t s) {
  if (rows == 0 || out == 0) return;
  if (rows > kGemvMaxRows) throw Error("gemv takes at most " + std::to_string(kGemvMaxRows) + " rows: use cuBLAS");
  if (in % 8 || ldx % 8) throw Error("gemv reads rows in 8-value vectors: their width and stride must be multiples of 8");
  if (rows == 1) return launch<T, 1>(x, rows, in, ldx, w, out, bias, gelu_after, y, ldy, s);
  if (rows == 2) return launch<T, 2>(x, rows, in, ldx, w, out, bias, gelu_after, y, ldy, s);
  if (rows <= 4) return launch<T, 4>(x, rows, in, ldx, w, out, bias, gelu_after, y, ldy, s);
  launch<T, kGemvMaxRows>(x, rows, in, ldx, w, out, bias, gelu_after, y, ldy, s);
}

#define INSTANTIATE(T) \
  template void gemv<T>(const T*, int, int, int, const T*, int, const float*, bool, T*, int, cudaStream_t);
AURIS_INSTANTIATE_FOR_STORAGE_TYPES(INSTANTIATE)

}  // namespace auris::cuda
