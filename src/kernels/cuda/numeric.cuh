// Storage types <-> fp32 in device code, and the warp/block reductions the kernels share.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace auris::cuda {

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// Eight consecutive values as fp32 (16-byte aligned): one 16-byte load for 2-byte types, two for fp32.
__device__ __forceinline__ void load8(const float* p, float out[8]) {
  const float4 a = reinterpret_cast<const float4*>(p)[0], b = reinterpret_cast<const float4*>(p)[1];
  out[0] = a.x, out[1] = a.y, out[2] = a.z, out[3] = a.w, out[4] = b.x, out[5] = b.y, out[6] = b.z, out[7] = b.w;
}
template <typename T>
__device__ __forceinline__ void load8(const T* p, float out[8]) {
  const uint4 raw = *reinterpret_cast<const uint4*>(p);
  const T* h = reinterpret_cast<const T*>(&raw);
  for (int i = 0; i < 8; ++i) out[i] = to_float(h[i]);
}

__device__ __forceinline__ float warp_sum(float x) {
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

__device__ __forceinline__ float warp_max(float x) {
  for (int offset = 16; offset > 0; offset >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
  return x;
}

// Sum over the block (blockDim.x a multiple of 32, at most 1024); every thread gets the result.
__device__ __forceinline__ float block_sum(float x, float* shared32) {
  x = warp_sum(x);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();  // shared32 may still be read by a previous call
  if (lane == 0) shared32[warp] = x;
  __syncthreads();
  const int warps = blockDim.x / 32;
  x = lane < warps ? shared32[lane] : 0.0f;
  return warp_sum(x);
}

__device__ __forceinline__ float block_max(float x, float* shared32) {
  x = warp_max(x);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0) shared32[warp] = x;
  __syncthreads();
  const int warps = blockDim.x / 32;
  x = lane < warps ? shared32[lane] : -INFINITY;
  return warp_max(x);
}

__device__ __forceinline__ float gelu(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }

}  // namespace auris::cuda

#define AURIS_INSTANTIATE_FOR_STORAGE_TYPES(MACRO) \
  MACRO(float)                                     \
  MACRO(__half)                                    \
  MACRO(__nv_bfloat16)
