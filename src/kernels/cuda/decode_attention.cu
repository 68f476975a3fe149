#include "kernels/cuda/kernels.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/numeric.cuh"

namespace auris::cuda {

namespace {

constexpr int kDHead = 64;
constexpr int kWarps = 8;
constexpr int kKeysPerChunk = 16;               // a warp's keys per pass: 4 groups of 8 lanes, 4 keys each
constexpr int kCrossKeysPerSplit = 128;         // a shared (cross) cache is split over blocks: one pass each
constexpr int kPartialStride = 2 + kDHead;      // running max, sum of exponentials, weighted values

// A self-attention cache (at most 448 keys) is read by one block per (head, row): one pass of its 8
// warps covers 128 keys, so even a full cache takes 4 passes, and no second kernel combines splits.
int splits_of(const DecodeAttentionShape& shape) {
  return shape.shared_kv ? (shape.capacity + kCrossKeysPerSplit - 1) / kCrossKeysPerSplit : 1;
}

// Block (split, head, row), 8 warps. Each pass of a warp takes 16 keys: lane group g = lane / 8 holds
// 4 of them, lane sub = lane % 8 dimensions [8 sub, 8 sub + 8), so a key's 128 bytes (fp16) are 8
// 16-byte loads and all 4 keys' loads are in flight before the first score is needed. Scores and
// values fold into an online softmax per warp; the warps merge in shared memory. With one split the
// block writes the output; otherwise it writes its partial sums, and the last block of (head, row)
// to finish (a ticket counter, reset for the next launch) combines them, so no second kernel runs.
template <typename T>
__global__ void __launch_bounds__(kWarps * 32)
    decode_attention_kernel(const T* q, int ldq, const float* q_bias, const T* k, const T* v, const int* n_kv,
                            const int* n_visible, const int* sources, long window_stride, int capacity,
                            int keys_per_split, bool shared_kv, float* partial, int* tickets, T* out, int ldo) {
  wait_for_prior_kernels();
  allow_next_kernel();
  const int split = blockIdx.x, head = blockIdx.y, row = blockIdx.z;
  const int heads = gridDim.y, splits = gridDim.x;
  const int width = heads * kDHead;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, group = lane / 8, sub = lane % 8;
  const int length = n_kv[row], visible = n_visible[row];
  const int begin = split * keys_per_split, end = min(length, begin + keys_per_split);

  // The query's 8 dimensions this lane needs, biased (rounded to T, as a separate bias add would
  // leave it) and scaled by 1/sqrt(64).
  float qd[8];
  const T* qh = q + static_cast<size_t>(row) * ldq + head * kDHead + 8 * sub;
  for (int i = 0; i < 8; ++i) {
    float x = to_float(qh[i]);
    if (q_bias) x = to_float(from_float<T>(x + q_bias[head * kDHead + 8 * sub + i]));
    qd[i] = x * 0.125f;
  }

  const int source = sources ? sources[row] : shared_kv ? 0 : row;  // its window, or its cache row
  const size_t head_base = shared_kv ? static_cast<size_t>(source) * window_stride + static_cast<size_t>(head) * capacity * kDHead
                                     : static_cast<size_t>(source) * capacity * width + head * kDHead;
  const size_t key_stride = shared_kv ? kDHead : width;
  float m = -INFINITY, l = 0.0f, acc[8] = {};
  for (int chunk = begin + warp * kKeysPerChunk; chunk < end; chunk += kWarps * kKeysPerChunk) {
    float score[4], val[4][8];
    for (int i = 0; i < 4; ++i) {
      const int j = chunk + 4 * group + i;
      score[i] = -INFINITY;
      if (j < end) {
        float kd[8];
        load8(k + head_base + j * key_stride + 8 * sub, kd);
        float dot = 0.0f;
        for (int d = 0; d < 8; ++d) dot += qd[d] * kd[d];
        score[i] = dot;
        load8(v + head_base + j * key_stride + 8 * sub, val[i]);
      }
    }
    float chunk_max = -INFINITY;
    for (int i = 0; i < 4; ++i) {
      for (int offset = 4; offset > 0; offset >>= 1) score[i] += __shfl_xor_sync(0xffffffffu, score[i], offset);
      if (chunk + 4 * group + i >= visible) score[i] = -INFINITY;  // read, then masked: the full-cache ablation
      chunk_max = fmaxf(chunk_max, score[i]);
    }
    chunk_max = fmaxf(chunk_max, __shfl_xor_sync(0xffffffffu, chunk_max, 8));
    chunk_max = fmaxf(chunk_max, __shfl_xor_sync(0xffffffffu, chunk_max, 16));
    if (chunk_max == -INFINITY) continue;  // every key of the chunk masked
    const float m_new = fmaxf(m, chunk_max), correction = __expf(m - m_new);
    float p_sum = 0.0f, part[8] = {};
    for (int i = 0; i < 4; ++i) {
      const float p = score[i] == -INFINITY ? 0.0f : __expf(score[i] - m_new);
      p_sum += p;
      for (int d = 0; d < 8; ++d) part[d] += p * (score[i] == -INFINITY ? 0.0f : val[i][d]);
    }
    p_sum += __shfl_xor_sync(0xffffffffu, p_sum, 8);
    p_sum += __shfl_xor_sync(0xffffffffu, p_sum, 16);
    for (int d = 0; d < 8; ++d) {
      part[d] += __shfl_xor_sync(0xffffffffu, part[d], 8);
      part[d] += __shfl_xor_sync(0xffffffffu, part[d], 16);
      acc[d] = acc[d] * correction + part[d];
    }
    l = l * correction + p_sum;
    m = m_new;
  }

  __shared__ float warp_m[kWarps], warp_l[kWarps], warp_acc[kWarps][kDHead];
  __shared__ bool last;
  if (lane == 0) warp_m[warp] = m, warp_l[warp] = l;
  if (group == 0)
    for (int d = 0; d < 8; ++d) warp_acc[warp][8 * sub + d] = acc[d];
  __syncthreads();
  if (warp != 0) return;
  // Warp 0 merges the warps: lane c < 32 takes dimensions c and c + 32.
  float block_m = -INFINITY;
  for (int w = 0; w < kWarps; ++w) block_m = fmaxf(block_m, warp_m[w]);
  float block_l = 0.0f, a0 = 0.0f, a1 = 0.0f;
  for (int w = 0; w < kWarps; ++w) {
    const float f = warp_m[w] == -INFINITY ? 0.0f : __expf(warp_m[w] - block_m);
    block_l += warp_l[w] * f;
    a0 += warp_acc[w][lane] * f;
    a1 += warp_acc[w][lane + 32] * f;
  }
  T* o = out + static_cast<size_t>(row) * ldo + head * kDHead;
  if (splits == 1) {
    o[lane] = from_float<T>(a0 / block_l);
    o[lane + 32] = from_float<T>(a1 / block_l);
    return;
  }
  float* mine = partial + ((static_cast<size_t>(row) * heads + head) * splits + split) * kPartialStride;
  if (lane == 0) mine[0] = block_m, mine[1] = block_l;
  mine[2 + lane] = a0;
  mine[2 + lane + 32] = a1;
  __threadfence();  // the partial sums are visible to whichever block combines them
  __syncwarp();     // every lane's, before lane 0 takes the ticket
  int* ticket = tickets + static_cast<size_t>(row) * heads + head;
  if (lane == 0) last = atomicAdd(ticket, 1) == splits - 1;
  __syncwarp();
  if (!last) return;
  __threadfence();
  const float* all = partial + (static_cast<size_t>(row) * heads + head) * splits * kPartialStride;
  float total_m = -INFINITY;
#pragma unroll 4
  for (int s = 0; s < splits; ++s) total_m = fmaxf(total_m, __ldcg(all + s * kPartialStride));
  float denominator = 0.0f, n0 = 0.0f, n1 = 0.0f;
#pragma unroll 4
  for (int s = 0; s < splits; ++s) {
    const float ms = __ldcg(all + s * kPartialStride);
    if (ms == -INFINITY) continue;
    const float f = __expf(ms - total_m);
    denominator += __ldcg(all + s * kPartialStride + 1) * f;
    n0 += __ldcg(all + s * kPartialStride + 2 + lane) * f;
    n1 += __ldcg(all + s * kPartialStride + 2 + lane + 32) * f;
  }
  o[lane] = from_float<T>(n0 / denominator);
  o[lane + 32] = from_float<T>(n1 / denominator);
  if (lane == 0) *ticket = 0;  // ready for the next launch (a captured graph's replay)
}

}  // namespace

long decode_attention_scratch(const DecodeAttentionShape& shape) {
  return static_cast<long>(shape.rows) * shape.heads * splits_of(shape) * kPartialStride;
}
long decode_attention_tickets(const DecodeAttentionShape& shape) { return static_cast<long>(shape.rows) * shape.heads; }

template <typename T>
void decode_attention(const T* q, int ldq, const float* q_bias, const T* k, const T* v, const int* n_kv,
                      const int* n_visible, const int* sources, const DecodeAttentionShape& shape, float* scratch,
                      int* tickets, T* out, int ldo, cudaStream_t s) {
  if (shape.rows == 0) return;
  const int keys_per_split = shape.shared_kv ? kCrossKeysPerSplit : shape.capacity;
  const dim3 grid(splits_of(shape), shape.heads, shape.rows);
  launch(decode_attention_kernel<T>, grid, dim3(kWarps * 32), s, q, ldq, q_bias, k, v, n_kv, n_visible, sources,
         shape.window_stride, shape.capacity, keys_per_split, shape.shared_kv, scratch, tickets, out, ldo);
}

#define INSTANTIATE(T)                                                                                      \
  template void decode_attention<T>(const T*, int, const float*, const T*, const T*, const int*, const int*, \
                                    const int*, const DecodeAttentionShape&, float*, int*, T*, int, cudaStream_t);
AURIS_INSTANTIATE_FOR_STORAGE_TYPES(INSTANTIATE)

}  // namespace auris::cuda
