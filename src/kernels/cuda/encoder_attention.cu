// The encoder's self-attention in one kernel (flash attention, as FlashAttention-2 lays it out):
// each block takes 64 queries of one head, each warp 16 of them, and walks the keys 64 at a time.
// The scores, the running softmax and the output stay in registers in the layout of the tensor
// cores' m16n8k16 products, so a tile's probabilities feed the next product without a trip through
// shared memory; only the K and V tiles pass through it, loaded with cp.async one tile ahead.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/kernels.h"

namespace auris::cuda {
namespace {

constexpr int kHeadDim = 64;
constexpr int kWarps = 4;
constexpr int kBlockQueries = 16 * kWarps;
constexpr int kTileKeys = 64;
constexpr int kStride = kHeadDim + 8;  // a tile row in shared memory, padded: ldmatrix's 8 rows hit 8 bank groups
constexpr int kTileElements = kTileKeys * kStride;

// Two values packed low-first into one register of a product's operand.
template <typename T>
__device__ __forceinline__ uint32_t pack(float lo, float hi);
template <>
__device__ __forceinline__ uint32_t pack<__half>(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&h);
}
template <>
__device__ __forceinline__ uint32_t pack<__nv_bfloat16>(float lo, float hi) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&h);
}

// d += a b for a 16x16 A (row-major), a 16x8 B (column-major) and fp32 C/D: mma.sync m16n8k16.
template <typename T>
__device__ __forceinline__ void mma(float d[4], const uint32_t a[4], uint32_t b0, uint32_t b1);
template <>
__device__ __forceinline__ void mma<__half>(float d[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
  asm(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ __forceinline__ void mma<__nv_bfloat16>(float d[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
  asm(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// Four 8x8 matrices of 2-byte values from shared memory; lane l gives the address of row l % 8 of
// matrix l / 8. Plain: lane gets (row lane/4, columns 2*(lane%4), +1) of each; transposed: (rows
// 2*(lane%4), +1, column lane/4).
__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}

// 16 bytes global -> shared without passing through registers; zeros where `valid` is false.
__device__ __forceinline__ void copy16_async(void* dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)), "l"(src),
               "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }
template <int Pending>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

// The K and V rows [k0, k0 + 64) of one head into a buffer pair; rows past n are zeros.
template <typename T>
__device__ __forceinline__ void load_tile(const T* __restrict__ qkv, int ld, int n, int width, int head, int k0,
                                          T* keys, T* values) {
  for (int i = threadIdx.x; i < kTileKeys * kHeadDim / 8; i += kWarps * 32) {
    const int r = i / 8, c = i % 8 * 8;
    const bool valid = k0 + r < n;
    const T* src = qkv + static_cast<size_t>(valid ? k0 + r : 0) * ld + head * kHeadDim + c;
    copy16_async(keys + r * kStride + c, src + width, valid);
    copy16_async(values + r * kStride + c, src + 2 * width, valid);
  }
}

// Fragment layout of m16n8k16 (lane = 4 g + t): A register i holds row g + 8 (i % 2), columns
// 2t + 8 (i / 2) and the next; B register i holds rows 2t + 8 i and the next, column g; C/D values
// 0, 1 are row g, columns 2t and 2t + 1, values 2, 3 the same columns of row g + 8.
template <typename T>
__global__ void __launch_bounds__(kWarps * 32)
    encoder_attention_kernel(const T* __restrict__ qkv, int ld, int n, int width, float scale_log2e, T* __restrict__ out,
                             int ldo) {
  __shared__ __align__(128) T keys[2][kTileElements];
  __shared__ __align__(128) T values[2][kTileElements];

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int head = blockIdx.y;
  const int q0 = blockIdx.x * kBlockQueries + warp * 16;
  const int tiles = (n + kTileKeys - 1) / kTileKeys;

  load_tile(qkv, ld, n, width, head, 0, keys[0], values[0]);
  commit_copies();

  // The warp's 16 queries as A operands, four 16-wide slices of the head dimension.
  uint32_t query[kHeadDim / 16][4];
  for (int kc = 0; kc < kHeadDim / 16; ++kc)
    for (int i = 0; i < 4; ++i) {
      const int r = q0 + g + 8 * (i % 2);
      const int c = head * kHeadDim + kc * 16 + 2 * t + 8 * (i / 2);
      query[kc][i] = r < n ? *reinterpret_cast<const uint32_t*>(qkv + static_cast<size_t>(r) * ld + c) : 0u;
    }

  float o[kHeadDim / 8][4] = {};                    // output, 8 column blocks of 8
  float row_max[2] = {-INFINITY, -INFINITY};         // rows g and g + 8, in log2 units
  float row_sum[2] = {0.0f, 0.0f};                   // this thread's columns' share

  for (int tile = 0; tile < tiles; ++tile) {
    const int buffer = tile % 2;
    if (tile + 1 < tiles) {
      load_tile(qkv, ld, n, width, head, (tile + 1) * kTileKeys, keys[buffer ^ 1], values[buffer ^ 1]);
      commit_copies();
      wait_copies<1>();
    } else {
      wait_copies<0>();
    }
    __syncthreads();
    const T* k_tile = keys[buffer];
    const T* v_tile = values[buffer];

    // S = Q K^T: 8 blocks of 8 keys. One ldmatrix gives B for two 16-wide slices of the head dim.
    float s[kTileKeys / 8][4] = {};
    for (int j = 0; j < kTileKeys / 8; ++j)
      for (int kc = 0; kc < kHeadDim / 16; kc += 2) {
        uint32_t b[4];
        ldmatrix_x4(b, k_tile + (j * 8 + lane % 8) * kStride + kc * 16 + lane / 8 * 8);
        mma<T>(s[j], query[kc], b[0], b[1]);
        mma<T>(s[j], query[kc + 1], b[2], b[3]);
      }

    // The running softmax over rows g and g + 8; a row's 64 scores lie in the 4 lanes of its quad.
    const int k0 = tile * kTileKeys;
    float tile_max[2] = {-INFINITY, -INFINITY};
    for (int j = 0; j < kTileKeys / 8; ++j)
      for (int i = 0; i < 4; ++i) {
        const bool valid = k0 + j * 8 + 2 * t + i % 2 < n;
        s[j][i] = valid ? s[j][i] * scale_log2e : -INFINITY;
        tile_max[i / 2] = fmaxf(tile_max[i / 2], s[j][i]);
      }
    float rescale[2];
    for (int h = 0; h < 2; ++h) {
      tile_max[h] = fmaxf(tile_max[h], __shfl_xor_sync(0xffffffffu, tile_max[h], 1));
      tile_max[h] = fmaxf(tile_max[h], __shfl_xor_sync(0xffffffffu, tile_max[h], 2));
      const float new_max = fmaxf(row_max[h], tile_max[h]);  // finite: every tile has a key
      rescale[h] = exp2f(row_max[h] - new_max);
      row_max[h] = new_max;
      row_sum[h] *= rescale[h];
    }
    for (int j = 0; j < kHeadDim / 8; ++j)
      for (int i = 0; i < 4; ++i) o[j][i] *= rescale[i / 2];

    // O += P V, P's A operand straight from S's accumulators: keys 16 kc .. 16 kc + 15 are S
    // blocks 2 kc and 2 kc + 1. One transposed ldmatrix gives B for two 8-wide column blocks.
    for (int kc = 0; kc < kTileKeys / 16; ++kc) {
      uint32_t p[4];
      for (int half = 0; half < 2; ++half) {
        float* block = s[2 * kc + half];
        const float e0 = exp2f(block[0] - row_max[0]), e1 = exp2f(block[1] - row_max[0]);
        const float e2 = exp2f(block[2] - row_max[1]), e3 = exp2f(block[3] - row_max[1]);
        row_sum[0] += e0 + e1;
        row_sum[1] += e2 + e3;
        p[2 * half] = pack<T>(e0, e1);
        p[2 * half + 1] = pack<T>(e2, e3);
      }
      for (int j = 0; j < kHeadDim / 8; j += 2) {
        uint32_t b[4];
        ldmatrix_x4_trans(b, v_tile + (kc * 16 + lane % 8 + (lane / 8) % 2 * 8) * kStride + (j + lane / 16) * 8);
        mma<T>(o[j], p, b[0], b[1]);
        mma<T>(o[j + 1], p, b[2], b[3]);
      }
    }
    __syncthreads();  // the next iteration's load overwrites this buffer
  }

  for (int h = 0; h < 2; ++h) {
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 1);
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 2);
  }
  for (int h = 0; h < 2; ++h) {
    const int r = q0 + g + 8 * h;
    if (r >= n) continue;
    const float inverse = 1.0f / row_sum[h];
    T* y = out + static_cast<size_t>(r) * ldo + head * kHeadDim + 2 * t;
    for (int j = 0; j < kHeadDim / 8; ++j)
      *reinterpret_cast<uint32_t*>(y + j * 8) = pack<T>(o[j][2 * h] * inverse, o[j][2 * h + 1] * inverse);
  }
}

}  // namespace

template <typename T>
void encoder_attention(const T* qkv, int n, int heads, float scale, T* out, int ldo, cudaStream_t s) {
  const int width = heads * kHeadDim;
  const dim3 grid((n + kBlockQueries - 1) / kBlockQueries, heads);
  encoder_attention_kernel<T><<<grid, kWarps * 32, 0, s>>>(qkv, 3 * width, n, width, scale * 1.4426950408889634f, out, ldo);
  AURIS_CUDA_CHECK_LAUNCH(encoder_attention_kernel);
}

template void encoder_attention<__half>(const __half*, int, int, float, __half*, int, cudaStream_t);
template void encoder_attention<__nv_bfloat16>(const __nv_bfloat16*, int, int, float, __nv_bfloat16*, int, cudaStream_t);

}  // namespace auris::cuda
