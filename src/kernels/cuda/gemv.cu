#include <string>

#include "auris/error.h"
#include "kernels/cuda/kernels.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/numeric.cuh"

namespace auris::cuda {

namespace {

constexpr int kWarps = 8;

// Each row's mean and 1/std over its `in` values, as layer_norm() takes them (two passes), one warp a
// row; every thread of the block sees them after the barrier. Each lane's loads are 8-value vectors,
// all in flight at once; the second pass reads them again from L1.
template <int R>
__device__ void row_statistics(const float* x, int rows, int in, float eps, float* mean, float* inv_std) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int r = warp; r < rows && r < R; r += kWarps) {
    const float* xr = x + static_cast<size_t>(r) * in;
    float sum = 0.0f;
#pragma unroll 4
    for (int i = 8 * lane; i < in; i += 8 * 32) {
      float v[8];
      load8(xr + i, v);
      for (int k = 0; k < 8; ++k) sum += v[k];
    }
    const float m = warp_sum(sum) / in;
    float squares = 0.0f;
#pragma unroll 4
    for (int i = 8 * lane; i < in; i += 8 * 32) {
      float v[8];
      load8(xr + i, v);
      for (int k = 0; k < 8; ++k) squares += (v[k] - m) * (v[k] - m);
    }
    const float var = warp_sum(squares) / in;
    if (lane == 0) mean[r] = m, inv_std[r] = rsqrtf(var + eps);
  }
  __syncthreads();
}

template <typename T, typename Y>
__device__ void write_output(const Gemv<T, Y>& g, int r, int o, float product) {
  if (g.residual) {
    g.residual[static_cast<size_t>(r) * g.out + o] += to_float(from_float<T>(product)) + (g.bias ? g.bias[o] : 0.0f);
    return;
  }
  float v = product + (g.bias ? g.bias[o] : 0.0f);
  if (g.gelu_after) v = gelu(v);
  g.y[static_cast<size_t>(r) * g.ldy + o] = from_float<Y>(v);
  const int width = g.out / 3;
  if (!g.k_cache || o < width) return;
  const T stored = from_float<T>(product);
  T* cache = o < 2 * width ? g.k_cache : g.v_cache;
  const size_t at = (static_cast<size_t>(g.cache_rows[r]) * g.capacity + g.positions[r]) * width + o % width;
  cache[at] = g.cache_bias ? from_float<T>(to_float(stored) + g.cache_bias[o]) : stored;
}

// One warp per output column o: its lanes stride over the weight row 8 values at a time (each lane's
// loads independent, so several are in flight), every one of the R rows of x taking the same weights.
// The weights depend on no earlier kernel, so the warp pulls its row toward L2 before waiting for the
// kernel ahead (launch.cuh).
template <typename T, typename Y, int R, bool kNormed>
__global__ void __launch_bounds__(kWarps * 32) gemv_kernel(const Gemv<T, Y> g) {
  const int o = blockIdx.x * kWarps + threadIdx.x / 32, lane = threadIdx.x % 32;
  const bool has_column = o < g.out;
  const T* wo = g.w + static_cast<size_t>(has_column ? o : 0) * g.in;
  if (has_column)
    for (int byte = 128 * lane; byte < g.in * static_cast<int>(sizeof(T)); byte += 128 * 32)
      prefetch_to_l2(reinterpret_cast<const char*>(wo) + byte);
  wait_for_prior_kernels();
  allow_next_kernel();
  __shared__ float mean[R], inv_std[R];
  if (kNormed) row_statistics<R>(g.normed_from, g.rows, g.in, g.eps, mean, inv_std);
  if (!has_column) return;
  float acc[R] = {};
#pragma unroll 4
  for (int i = 8 * lane; i < g.in; i += 8 * 32) {
    float wv[8], gamma[8], beta[8];
    load8(wo + i, wv);
    if (kNormed) load8(g.gamma + i, gamma), load8(g.beta + i, beta);
    for (int r = 0; r < R; ++r) {
      if (r >= g.rows) break;
      float xv[8];
      if (kNormed) {
        load8(g.normed_from + static_cast<size_t>(r) * g.in + i, xv);
        for (int k = 0; k < 8; ++k) xv[k] = to_float(from_float<T>((xv[k] - mean[r]) * inv_std[r] * gamma[k] + beta[k]));
      } else {
        load8(g.x + static_cast<size_t>(r) * g.ldx + i, xv);
      }
      for (int k = 0; k < 8; ++k) acc[r] += wv[k] * xv[k];
    }
  }
  for (int r = 0; r < R; ++r) acc[r] = warp_sum(acc[r]);
  if (lane != 0) return;
  for (int r = 0; r < R && r < g.rows; ++r) write_output(g, r, o, acc[r]);
}

template <typename T, typename Y, int R>
void launch_rows(const Gemv<T, Y>& g, cudaStream_t s) {
  const dim3 grid((g.out + kWarps - 1) / kWarps), block(kWarps * 32);
  if (g.normed_from) return launch(gemv_kernel<T, Y, R, true>, grid, block, s, g);
  launch(gemv_kernel<T, Y, R, false>, grid, block, s, g);
}

}  // namespace

template <typename T, typename Y>
void gemv(const Gemv<T, Y>& g, cudaStream_t s) {
  if (g.rows == 0 || g.out == 0) return;
  if (g.rows > kGemvMaxRows) throw Error("gemv takes at most " + std::to_string(kGemvMaxRows) + " rows: use cuBLAS");
  if (g.in % 8 || (!g.normed_from && g.ldx % 8))
    throw Error("gemv reads rows in 8-value vectors: their width and stride must be multiples of 8");
  if (g.k_cache && (g.residual || g.out % 3 || !g.v_cache || !g.cache_rows || !g.positions))
    throw Error("gemv writes a cache only from a fused Q|K|V projection, with both caches, rows and positions");
  if (g.rows == 1) return launch_rows<T, Y, 1>(g, s);
  if (g.rows == 2) return launch_rows<T, Y, 2>(g, s);
  if (g.rows <= 4) return launch_rows<T, Y, 4>(g, s);
  launch_rows<T, Y, kGemvMaxRows>(g, s);
}

template void gemv<float, float>(const Gemv<float, float>&, cudaStream_t);
template void gemv<__half, __half>(const Gemv<__half, __half>&, cudaStream_t);
template void gemv<__half, float>(const Gemv<__half, float>&, cudaStream_t);
template void gemv<__nv_bfloat16, __nv_bfloat16>(const Gemv<__nv_bfloat16, __nv_bfloat16>&, cudaStream_t);
template void gemv<__nv_bfloat16, float>(const Gemv<__nv_bfloat16, float>&, cudaStream_t);

}  // namespace auris::cuda
