// The encoder's self-attention in one kernel (flash attention): each block takes 64 queries of one
// head and walks the keys 64 at a time, keeping a running row maximum and sum, so the scores never
// leave the multiprocessor. The products run on tensor cores through WMMA (fp16 or bf16 in, fp32
// accumulation); the softmax is fp32. One warp owns 16 query rows.
#include <mma.h>

#include <cmath>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/kernels.h"
#include "kernels/cuda/numeric.cuh"

namespace auris::cuda {
namespace {

using namespace nvcuda;

constexpr int kHeadDim = 64;
constexpr int kWarpRows = 16;
constexpr int kWarps = 4;
constexpr int kBlockRows = kWarps * kWarpRows;  // queries per block
constexpr int kTileKeys = 64;                   // keys per step of the walk
constexpr int kChunk = 16;                      // WMMA's tile edge

// Lane `lane` holds row lane / 2 and 32 of its 64 columns; column i of its 32 is rotated by the row
// so that the 32 lanes touch 32 different shared-memory banks at every i.
__device__ __forceinline__ int lane_column(int lane, int i) {
  const int row = lane >> 1, half = lane & 1;
  return half * 32 + ((i + row + 16 * half) & 31);
}

template <typename T>
__global__ void __launch_bounds__(kWarps * 32)
    encoder_attention_kernel(const T* __restrict__ qkv, int ld, int n, int width, float scale_log2e, T* __restrict__ out,
                             int ldo) {
  __shared__ __align__(32) T keys[kTileKeys * kHeadDim];
  __shared__ __align__(32) T values[kTileKeys * kHeadDim];
  __shared__ __align__(32) float scores[kWarps][kWarpRows * kTileKeys];  // S, then P (as T) over it
  __shared__ __align__(32) float acc[kWarps][kWarpRows * kHeadDim];      // the unnormalised output

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int head = blockIdx.y;
  const int q0 = blockIdx.x * kBlockRows + warp * kWarpRows;
  float* s = scores[warp];
  float* o = acc[warp];
  T* p = reinterpret_cast<T*>(s);
  const uint4 zero = make_uint4(0, 0, 0, 0);

  // The warp's queries, staged through its score buffer (rows past n read as zeros).
  for (int i = lane; i < kWarpRows * kHeadDim / 8; i += 32) {
    const int r = i / 8, c = i % 8 * 8;
    reinterpret_cast<uint4*>(p + r * kHeadDim + c)[0] =
        q0 + r < n ? *reinterpret_cast<const uint4*>(qkv + static_cast<size_t>(q0 + r) * ld + head * kHeadDim + c) : zero;
  }
  for (int i = lane; i < kWarpRows * kHeadDim; i += 32) o[i] = 0.0f;
  __syncwarp();
  wmma::fragment<wmma::matrix_a, kChunk, kChunk, kChunk, T, wmma::row_major> query[kHeadDim / kChunk];
  for (int k = 0; k < kHeadDim / kChunk; ++k) wmma::load_matrix_sync(query[k], p + k * kChunk, kHeadDim);

  const int row = lane >> 1;
  float row_max = -INFINITY, row_sum = 0.0f;
  for (int k0 = 0; k0 < n; k0 += kTileKeys) {
    __syncthreads();  // every warp is done with the previous tile
    for (int i = threadIdx.x; i < kTileKeys * kHeadDim / 8; i += blockDim.x) {
      const int r = i / 8, c = i % 8 * 8;
      const size_t at = static_cast<size_t>(k0 + r) * ld + head * kHeadDim + c;
      const bool valid = k0 + r < n;
      reinterpret_cast<uint4*>(keys + r * kHeadDim + c)[0] = valid ? *reinterpret_cast<const uint4*>(qkv + at + width) : zero;
      reinterpret_cast<uint4*>(values + r * kHeadDim + c)[0] =
          valid ? *reinterpret_cast<const uint4*>(qkv + at + 2 * width) : zero;
    }
    __syncthreads();

    // S = Q K^T for the warp's 16 rows and the tile's 64 keys.
    for (int j = 0; j < kTileKeys / kChunk; ++j) {
      wmma::fragment<wmma::accumulator, kChunk, kChunk, kChunk, float> part;
      wmma::fill_fragment(part, 0.0f);
      for (int k = 0; k < kHeadDim / kChunk; ++k) {
        wmma::fragment<wmma::matrix_b, kChunk, kChunk, kChunk, T, wmma::col_major> key;
        wmma::load_matrix_sync(key, keys + j * kChunk * kHeadDim + k * kChunk, kHeadDim);
        wmma::mma_sync(part, query[k], key, part);
      }
      wmma::store_matrix_sync(s + j * kChunk, part, kTileKeys, wmma::mem_row_major);
    }
    __syncwarp();

    // The running softmax: each lane pair owns a row, in base 2 with the scale folded in.
    float x[32];
    float tile_max = -INFINITY;
    for (int i = 0; i < 32; ++i) {
      const int c = lane_column(lane, i);
      x[i] = k0 + c < n ? s[row * kTileKeys + c] * scale_log2e : -INFINITY;
      tile_max = fmaxf(tile_max, x[i]);
    }
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
    const float new_max = fmaxf(row_max, tile_max);  // finite: every tile has a key
    const float rescale = exp2f(row_max - new_max);
    float tile_sum = 0.0f;
    __syncwarp();  // S is read before P overwrites it
    for (int i = 0; i < 32; ++i) {
      const float e = exp2f(x[i] - new_max);
      tile_sum += e;
      p[row * kTileKeys + lane_column(lane, i)] = from_float<T>(e);
    }
    tile_sum += __shfl_xor_sync(0xffffffffu, tile_sum, 1);
    row_sum = row_sum * rescale + tile_sum;
    row_max = new_max;
    for (int i = 0; i < 32; ++i) o[row * kHeadDim + lane_column(lane, i)] *= rescale;
    __syncwarp();

    // O += P V.
    for (int j = 0; j < kHeadDim / kChunk; ++j) {
      wmma::fragment<wmma::accumulator, kChunk, kChunk, kChunk, float> part;
      wmma::load_matrix_sync(part, o + j * kChunk, kHeadDim, wmma::mem_row_major);
      for (int k = 0; k < kTileKeys / kChunk; ++k) {
        wmma::fragment<wmma::matrix_a, kChunk, kChunk, kChunk, T, wmma::row_major> prob;
        wmma::fragment<wmma::matrix_b, kChunk, kChunk, kChunk, T, wmma::row_major> value;
        wmma::load_matrix_sync(prob, p + k * kChunk, kTileKeys);
        wmma::load_matrix_sync(value, values + k * kChunk * kHeadDim + j * kChunk, kHeadDim);
        wmma::mma_sync(part, prob, value, part);
      }
      wmma::store_matrix_sync(o + j * kChunk, part, kHeadDim, wmma::mem_row_major);
    }
    __syncwarp();
  }

  if (q0 + row < n) {
    const float inverse = 1.0f / row_sum;
    T* y = out + static_cast<size_t>(q0 + row) * ldo + head * kHeadDim;
    for (int i = 0; i < 32; ++i) {
      const int c = lane_column(lane, i);
      y[c] = from_float<T>(o[row * kHeadDim + c] * inverse);
    }
  }
}

}  // namespace

template <typename T>
void encoder_attention(const T* qkv, int n, int heads, float scale, T* out, int ldo, cudaStream_t s) {
  const int width = heads * kHeadDim;
  const dim3 grid((n + kBlockRows - 1) / kBlockRows, heads);
  encoder_attention_kernel<T><<<grid, kWarps * 32, 0, s>>>(qkv, 3 * width, n, width, scale * 1.4426950408889634f, out, ldo);
  AURIS_CUDA_CHECK(cudaGetLastError());
}

template void encoder_attention<__half>(const __half*, int, int, float, __half*, int, cudaStream_t);
template void encoder_attention<__nv_bfloat16>(const __nv_bfloat16*, int, int, float, __nv_bfloat16*, int, cudaStream_t);

}  // namespace auris::cuda
