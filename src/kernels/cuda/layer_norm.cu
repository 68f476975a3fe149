#include "auris/error.h"
#include "kernels/cuda/kernels.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/numeric.cuh"

namespace auris::cuda {

namespace {

constexpr int kThreads = 256;

// One block per row; the row (at most 2048 wide) is read once into registers, mean and variance
// taken in two passes over them, as the CPU kernel does in double. With a residual (not null), the
// row first takes it in, x += residual + bias, as add_to_residual does, and is written back.
template <typename T>
__global__ void layer_norm_kernel(float* x, const T* residual, const float* bias, int n, const float* gamma,
                                  const float* beta, T* y, float eps) {
  wait_for_prior_kernels();
  allow_next_kernel();
  __shared__ float shared[32];
  constexpr int kPerThread = 8;  // n <= kThreads * kPerThread
  float* xr = x + static_cast<size_t>(blockIdx.x) * n;
  const T* rr = residual ? residual + static_cast<size_t>(blockIdx.x) * n : nullptr;
  float v[kPerThread], g[kPerThread], b[kPerThread];
  for (int k = 0; k < kPerThread; ++k) {  // loaded first, so their latency overlaps the reductions
    const int c = threadIdx.x + k * kThreads;
    g[k] = c < n ? gamma[c] : 0.0f;
    b[k] = c < n ? beta[c] : 0.0f;
  }
  float sum = 0.0f;
  for (int k = 0; k < kPerThread; ++k) {
    const int c = threadIdx.x + k * kThreads;
    v[k] = c < n ? xr[c] : 0.0f;
    if (rr && c < n) {
      v[k] += to_float(rr[c]) + (bias ? bias[c] : 0.0f);
      xr[c] = v[k];
    }
    sum += v[k];
  }
  const float mean = block_sum(sum, shared) / n;
  float squares = 0.0f;
  for (int k = 0; k < kPerThread; ++k) {
    const int c = threadIdx.x + k * kThreads;
    const float d = c < n ? v[k] - mean : 0.0f;
    squares += d * d;
  }
  const float inv = rsqrtf(block_sum(squares, shared) / n + eps);
  T* yr = y + static_cast<size_t>(blockIdx.x) * n;
  for (int k = 0; k < kPerThread; ++k) {
    const int c = threadIdx.x + k * kThreads;
    if (c < n) yr[c] = from_float<T>((v[k] - mean) * inv * g[k] + b[k]);
  }
}

}  // namespace

template <typename T>
void layer_norm(const float* x, int rows, int n, const float* gamma, const float* beta, T* y, cudaStream_t s,
                float eps) {
  if (n > kThreads * 8) throw Error("layer_norm on the GPU takes rows of at most 2048 values");
  if (rows == 0) return;
  // x is only read without a residual.
  launch(layer_norm_kernel<T>, rows, kThreads, s, const_cast<float*>(x), static_cast<const T*>(nullptr),
         static_cast<const float*>(nullptr), n, gamma, beta, y, eps);
}

template <typename T>
void residual_layer_norm(float* x, const T* y, const float* bias, int rows, int n, const float* gamma,
                         const float* beta, T* normed, cudaStream_t s, float eps) {
  if (n > kThreads * 8) throw Error("layer_norm on the GPU takes rows of at most 2048 values");
  if (rows == 0) return;
  launch(layer_norm_kernel<T>, rows, kThreads, s, x, y, bias, n, gamma, beta, normed, eps);
}

#define INSTANTIATE(T)                                                                                     \
  template void layer_norm<T>(const float*, int, int, const float*, const float*, T*, cudaStream_t, float); \
  template void residual_layer_norm<T>(float*, const T*, const float*, int, int, const float*, const float*, T*, \
                                       cudaStream_t, float);
AURIS_INSTANTIATE_FOR_STORAGE_TYPES(INSTANTIATE)

}  // namespace auris::cuda
