#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/kernels.h"
#include "kernels/cuda/numeric.cuh"

namespace auris::cuda {

namespace {

constexpr int kThreads = 256;

// One block per row: max, sum of exponentials, then the normalised row, all in fp32.
template <typename T>
__global__ void softmax_rows_kernel(const float* scores, int n, float scale, T* probabilities, int rows_per_head,
                                    int causal_offset) {
  __shared__ float shared[32];
  const float* row = scores + static_cast<size_t>(blockIdx.x) * n;
  const int visible = causal_offset >= 0 ? min(n, static_cast<int>(blockIdx.x) % rows_per_head + causal_offset + 1) : n;
  float max = -INFINITY;
  for (int c = threadIdx.x; c < visible; c += kThreads) max = fmaxf(max, row[c] * scale);
  max = block_max(max, shared);
  float sum = 0.0f;
  for (int c = threadIdx.x; c < visible; c += kThreads) sum += __expf(row[c] * scale - max);
  const float inv = 1.0f / block_sum(sum, shared);
  T* out = probabilities + static_cast<size_t>(blockIdx.x) * n;
  for (int c = threadIdx.x; c < n; c += kThreads)
    out[c] = from_float<T>(c < visible ? __expf(row[c] * scale - max) * inv : 0.0f);
}

}  // namespace

template <typename T>
void softmax_rows(const float* scores, int rows, int n, float scale, T* probabilities, cudaStream_t s, int rows_per_head,
                  int causal_offset) {
  if (!rows) return;
  softmax_rows_kernel<T><<<rows, kThreads, 0, s>>>(scores, n, scale, probabilities, rows_per_head, causal_offset);
  AURIS_CUDA_CHECK_LAUNCH(softmax_rows_kernel);
}

#define INSTANTIATE(T) template void softmax_rows<T>(const float*, int, int, float, T*, cudaStream_t, int, int);
AURIS_INSTANTIATE_FOR_STORAGE_TYPES(INSTANTIATE)

}  // namespace auris::cuda
