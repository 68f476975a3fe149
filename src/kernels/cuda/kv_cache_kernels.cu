#include "kernels/cuda/kernels.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/numeric.cuh"

namespace auris::cuda {

namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void append_kv_kernel(const T* qkv, int ld, int width, const float* bias, const int* rows,
                                 const int* positions, T* k_cache, T* v_cache, int capacity, long count) {
  wait_for_prior_kernels();
  allow_next_kernel();
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const long input = i / width, c = i % width;
  const size_t at = (static_cast<size_t>(rows[input]) * capacity + positions[input]) * width + c;
  const T k = qkv[input * ld + width + c], v = qkv[input * ld + 2 * width + c];
  k_cache[at] = bias ? from_float<T>(to_float(k) + bias[width + c]) : k;
  v_cache[at] = bias ? from_float<T>(to_float(v) + bias[2 * width + c]) : v;
}

template <typename T>
__global__ void gather_cache_rows_kernel(const T* src, T* dst, const int* source_rows, int length, int capacity,
                                         int width, long count) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const long per_row = static_cast<long>(length) * width;
  const long row = i / per_row, within = i % per_row;
  dst[row * capacity * width + within] = src[static_cast<long>(source_rows[row]) * capacity * width + within];
}

// [t][block][64] -> [block][t][64], block = (layer, K|V, head).
template <typename T>
__global__ void regroup_heads_kernel(const T* projected, int n_ctx, int blocks, T* cache, long count) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const long t = i / (static_cast<long>(blocks) * 64), b = (i / 64) % blocks, c = i % 64;
  cache[(b * n_ctx + t) * 64 + c] = projected[i];
}

}  // namespace

template <typename T>
void regroup_heads(const T* projected, int n_ctx, int blocks, T* cache, cudaStream_t s) {
  const long count = static_cast<long>(n_ctx) * blocks * 64;
  if (!count) return;
  regroup_heads_kernel<T><<<static_cast<unsigned>((count + kThreads - 1) / kThreads), kThreads, 0, s>>>(
      projected, n_ctx, blocks, cache, count);
  AURIS_CUDA_CHECK_LAUNCH(regroup_heads_kernel);
}

template <typename T>
void append_kv(const T* qkv, int n, int ld, int width, const float* bias, const int* rows, const int* positions,
               T* k_cache, T* v_cache, int capacity, cudaStream_t s) {
  const long count = static_cast<long>(n) * width;
  if (count)
    launch(append_kv_kernel<T>, static_cast<unsigned>((count + kThreads - 1) / kThreads), kThreads, s, qkv, ld, width,
           bias, rows, positions, k_cache, v_cache, capacity, count);
}

template <typename T>
void gather_cache_rows(const T* src, T* dst, const int* source_rows, int rows, int length, int capacity, int width,
                       cudaStream_t s) {
  const long count = static_cast<long>(rows) * length * width;
  if (!count) return;
  gather_cache_rows_kernel<T><<<static_cast<unsigned>((count + kThreads - 1) / kThreads), kThreads, 0, s>>>(
      src, dst, source_rows, length, capacity, width, count);
  AURIS_CUDA_CHECK_LAUNCH(gather_cache_rows_kernel);
}

#define INSTANTIATE(T)                                                                                       \
  template void append_kv<T>(const T*, int, int, int, const float*, const int*, const int*, T*, T*, int,      \
                             cudaStream_t);                                                                   \
  template void gather_cache_rows<T>(const T*, T*, const int*, int, int, int, int, cudaStream_t);             \
  template void regroup_heads<T>(const T*, int, int, T*, cudaStream_t);
AURIS_INSTANTIATE_FOR_STORAGE_TYPES(INSTANTIATE)

}  // namespace auris::cuda
