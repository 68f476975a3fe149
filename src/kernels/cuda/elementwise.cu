#include "kernels/cuda/kernels.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/numeric.cuh"

namespace auris::cuda {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(long count) { return static_cast<unsigned>((count + kThreads - 1) / kThreads); }

template <typename T>
__global__ void add_to_residual_kernel(float* x, const T* y, const float* bias, int n, long count) {
  wait_for_prior_kernels();
  allow_next_kernel();
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  x[i] += to_float(y[i]) + (bias ? bias[i % n] : 0.0f);
}

template <typename T>
__global__ void bias_gelu_kernel(T* y, const float* bias, int n, int ldy, long count) {
  wait_for_prior_kernels();
  allow_next_kernel();
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const long r = i / n, c = i % n;
  T& v = y[r * ldy + c];
  v = from_float<T>(gelu(to_float(v) + (bias ? bias[c] : 0.0f)));
}

template <typename T>
__global__ void bias_gelu_to_float_kernel(const T* y, const float* bias, const float* add, int n, long count, float* x) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const T v = from_float<T>(gelu(to_float(y[i]) + (bias ? bias[i % n] : 0.0f)));
  x[i] = to_float(v) + (add ? add[i] : 0.0f);
}

template <typename T>
__global__ void add_bias_kernel(T* y, const float* bias, int n, int ldy, long count) {
  wait_for_prior_kernels();
  allow_next_kernel();
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const long r = i / n, c = i % n;
  T& v = y[r * ldy + c];
  v = from_float<T>(to_float(v) + bias[c]);
}

template <typename T>
__global__ void embed_kernel(const int* tokens, const int* position, const T* token_embedding, const float* positions,
                             int width, float* x, long count) {
  wait_for_prior_kernels();
  allow_next_kernel();
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const long row = i / width, c = i % width;
  x[i] = to_float(token_embedding[static_cast<long>(tokens[row]) * width + c]) +
         positions[static_cast<long>(position[row]) * width + c];
}

template <typename T>
__global__ void im2col_k3_kernel(const float* in, int channels, int in_len, long c_stride, long t_stride, int stride,
                                 T* columns, long count) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const long width = static_cast<long>(channels) * 3;
  const long t = i / width;
  const int c = static_cast<int>((i % width) / 3), k = static_cast<int>(i % 3);
  const long src = t * stride - 1 + k;
  columns[i] = from_float<T>(src >= 0 && src < in_len ? in[c * c_stride + src * t_stride] : 0.0f);
}

template <typename From, typename To>
__global__ void convert_kernel(const From* x, const float* add, long count, To* y) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  y[i] = from_float<To>(to_float(x[i]) + (add ? add[i] : 0.0f));
}

}  // namespace

template <typename T>
void add_to_residual(float* x, const T* y, const float* bias, int rows, int n, cudaStream_t s) {
  const long count = static_cast<long>(rows) * n;
  if (count) launch(add_to_residual_kernel<T>, blocks_for(count), kThreads, s, x, y, bias, n, count);
}

template <typename T>
void bias_gelu(T* y, const float* bias, int rows, int n, int ldy, cudaStream_t s) {
  const long count = static_cast<long>(rows) * n;
  if (count) launch(bias_gelu_kernel<T>, blocks_for(count), kThreads, s, y, bias, n, ldy, count);
}

template <typename T>
void bias_gelu_to_float(const T* y, const float* bias, const float* add, int rows, int n, float* x, cudaStream_t s) {
  const long count = static_cast<long>(rows) * n;
  if (!count) return;
  bias_gelu_to_float_kernel<T><<<blocks_for(count), kThreads, 0, s>>>(y, bias, add, n, count, x);
  AURIS_CUDA_CHECK_LAUNCH(bias_gelu_to_float_kernel);
}

template <typename T>
void add_bias(T* y, const float* bias, int rows, int n, int ldy, cudaStream_t s) {
  const long count = static_cast<long>(rows) * n;
  if (count && bias) launch(add_bias_kernel<T>, blocks_for(count), kThreads, s, y, bias, n, ldy, count);
}

template <typename T>
void embed(const int* tokens, const int* position, int n, const T* token_embedding, const float* positions, int width,
           float* x, cudaStream_t s) {
  const long count = static_cast<long>(n) * width;
  if (count) launch(embed_kernel<T>, blocks_for(count), kThreads, s, tokens, position, token_embedding, positions, width, x, count);
}

template <typename T>
void im2col_k3(const float* in, int channels, int in_len, long c_stride, long t_stride, int stride, int out_len,
               T* columns, cudaStream_t s) {
  const long count = static_cast<long>(out_len) * channels * 3;
  if (!count) return;
  im2col_k3_kernel<T><<<blocks_for(count), kThreads, 0, s>>>(in, channels, in_len, c_stride, t_stride, stride, columns, count);
  AURIS_CUDA_CHECK_LAUNCH(im2col_k3_kernel);
}

template <typename From, typename To>
void convert(const From* x, const float* add, long count, To* y, cudaStream_t s) {
  if (!count) return;
  convert_kernel<From, To><<<blocks_for(count), kThreads, 0, s>>>(x, add, count, y);
  AURIS_CUDA_CHECK_LAUNCH(convert_kernel);
}

#define INSTANTIATE(T)                                                                                          \
  template void add_to_residual<T>(float*, const T*, const float*, int, int, cudaStream_t);                    \
  template void bias_gelu<T>(T*, const float*, int, int, int, cudaStream_t);                                    \
  template void add_bias<T>(T*, const float*, int, int, int, cudaStream_t);                                     \
  template void bias_gelu_to_float<T>(const T*, const float*, const float*, int, int, float*, cudaStream_t);      \
  template void embed<T>(const int*, const int*, int, const T*, const float*, int, float*, cudaStream_t);       \
  template void im2col_k3<T>(const float*, int, int, long, long, int, int, T*, cudaStream_t);
AURIS_INSTANTIATE_FOR_STORAGE_TYPES(INSTANTIATE)

template void convert<float, float>(const float*, const float*, long, float*, cudaStream_t);
template void convert<float, __half>(const float*, const float*, long, __half*, cudaStream_t);
template void convert<__half, float>(const __half*, const float*, long, float*, cudaStream_t);
template void convert<float, __nv_bfloat16>(const float*, const float*, long, __nv_bfloat16*, cudaStream_t);
template void convert<__nv_bfloat16, float>(const __nv_bfloat16*, const float*, long, float*, cudaStream_t);

}  // namespace auris::cuda
