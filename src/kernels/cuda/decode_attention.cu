#include "auris/error.h"
#include "kernels/cuda/kernels.h"
#include "kernels/cuda/numeric.cuh"

namespace auris::cuda {

namespace {

constexpr int kDHead = 64;
constexpr int kKeysPerBlock = 64;
constexpr int kWarps = 4;
constexpr int kPartialStride = 2 + kDHead;  // running max, sum of exponentials, weighted values

int splits_of(const DecodeAttentionShape& shape) { return (shape.capacity + kKeysPerBlock - 1) / kKeysPerBlock; }

// Block (split, head, row): keys [split*64, split*64 + 64) that are below *n_kv, one warp per key at
// a time, each lane holding 2 of the 64 dimensions; an online softmax per warp, then the warps merged.
template <typename T>
__global__ void decode_attention_kernel(const T* q, int ldq, const T* k, const T* v, const int* n_kv,
                                        const int* n_visible, int capacity, bool shared_kv, float* partial) {
  const int split = blockIdx.x, head = blockIdx.y, row = blockIdx.z;
  const int heads = gridDim.y, splits = gridDim.x;
  const int width = heads * kDHead;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int length = *n_kv, visible = *n_visible;
  const int begin = split * kKeysPerBlock, end = min(length, begin + kKeysPerBlock);
  float* out = partial + (static_cast<size_t>(row) * heads + head) * splits * kPartialStride +
               static_cast<size_t>(split) * kPartialStride;

  const T* qh = q + static_cast<size_t>(row) * ldq + head * kDHead;
  const float scale = 0.125f;  // 1/sqrt(64)
  const float q0 = to_float(qh[2 * lane]) * scale, q1 = to_float(qh[2 * lane + 1]) * scale;
  float m = -INFINITY, l = 0.0f, acc0 = 0.0f, acc1 = 0.0f;
  for (int j = begin + warp; j < end; j += kWarps) {
    const size_t at = shared_kv ? (static_cast<size_t>(head) * capacity + j) * kDHead
                                : (static_cast<size_t>(row) * capacity + j) * width + head * kDHead;
    const float dot = warp_sum(q0 * to_float(k[at + 2 * lane]) + q1 * to_float(k[at + 2 * lane + 1]));
    if (j >= visible) continue;  // read, then masked: the full-cache ablation's wasted work
    const float score = dot;
    const float m_new = fmaxf(m, score);
    const float correction = __expf(m - m_new);
    const float p = __expf(score - m_new);
    l = l * correction + p;
    acc0 = acc0 * correction + p * to_float(v[at + 2 * lane]);
    acc1 = acc1 * correction + p * to_float(v[at + 2 * lane + 1]);
    m = m_new;
  }

  __shared__ float warp_m[kWarps], warp_l[kWarps], warp_acc[kWarps][kDHead];
  if (lane == 0) warp_m[warp] = m, warp_l[warp] = l;
  warp_acc[warp][2 * lane] = acc0;
  warp_acc[warp][2 * lane + 1] = acc1;
  __syncthreads();
  if (warp != 0) return;
  float block_m = -INFINITY;
  for (int w = 0; w < kWarps; ++w) block_m = fmaxf(block_m, warp_m[w]);
  float block_l = 0.0f, a0 = 0.0f, a1 = 0.0f;
  for (int w = 0; w < kWarps; ++w) {
    const float f = warp_m[w] == -INFINITY ? 0.0f : __expf(warp_m[w] - block_m);
    block_l += warp_l[w] * f;
    a0 += warp_acc[w][2 * lane] * f;
    a1 += warp_acc[w][2 * lane + 1] * f;
  }
  if (lane == 0) out[0] = block_m, out[1] = block_l;
  out[2 + 2 * lane] = a0;
  out[2 + 2 * lane + 1] = a1;
}

// Block (head, row), one thread per dimension: the splits' partial sums rescaled to a common max.
template <typename T>
__global__ void combine_splits_kernel(const float* partial, int splits, T* out, int ldo) {
  const int head = blockIdx.x, row = blockIdx.y, heads = gridDim.x;
  const float* p = partial + (static_cast<size_t>(row) * heads + head) * splits * kPartialStride;
  float m = -INFINITY;
  for (int s = 0; s < splits; ++s) m = fmaxf(m, p[s * kPartialStride]);
  float denominator = 0.0f, numerator = 0.0f;
  for (int s = 0; s < splits; ++s) {
    const float ms = p[s * kPartialStride];
    if (ms == -INFINITY) continue;
    const float f = __expf(ms - m);
    denominator += p[s * kPartialStride + 1] * f;
    numerator += p[s * kPartialStride + 2 + threadIdx.x] * f;
  }
  out[static_cast<size_t>(row) * ldo + head * kDHead + threadIdx.x] = from_float<T>(numerator / denominator);
}

}  // namespace

long decode_attention_scratch(const DecodeAttentionShape& shape) {
  return static_cast<long>(shape.rows) * shape.heads * splits_of(shape) * kPartialStride;
}

template <typename T>
void decode_attention(const T* q, int ldq, const T* k, const T* v, const int* n_kv, const int* n_visible,
                      const DecodeAttentionShape& shape, float* partial, T* out, int ldo, cudaStream_t s) {
  if (shape.rows == 0) return;
  const dim3 grid(splits_of(shape), shape.heads, shape.rows);
  decode_attention_kernel<T><<<grid, kWarps * 32, 0, s>>>(q, ldq, k, v, n_kv, n_visible, shape.capacity, shape.shared_kv,
                                                          partial);
  combine_splits_kernel<T><<<dim3(shape.heads, shape.rows), kDHead, 0, s>>>(partial, splits_of(shape), out, ldo);
}

#define INSTANTIATE(T)                                                                                      \
  template void decode_attention<T>(const T*, int, const T*, const T*, const int*, const int*,              \
                                    const DecodeAttentionShape&, float*, T*, int, cudaStream_t);
AURIS_INSTANTIATE_FOR_STORAGE_TYPES(INSTANTIATE)

}  // namespace auris::cuda
