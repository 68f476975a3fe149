// The encoder's self-attention through cuDNN's fused scaled dot-product attention (its flash
// attention on tensor cores: the scores never reach global memory). The project's GPU issue names
// it beside a kernel of our own (encoder_attention, kernels.h); both wait for a GPU to measure them
// side by side against the cuBLAS products around a softmax that the engine runs by default.
//
// cuDNN is opened when first asked for (dlopen of libcudnn.so.9, through its frontend's dynamic
// loading), so the CUDA plugin loads and runs on machines without it.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>

namespace auris::cuda {

class CudnnAttention {
 public:
  // Why cuDNN's attention cannot run here (a build without cuDNN's frontend headers, or no
  // libcudnn.so.9 the loader finds), or empty when it can be tried.
  static std::string unavailable_reason();

  // A cuDNN handle on `stream`. Throws auris::Error with unavailable_reason() where it cannot run.
  explicit CudnnAttention(cudaStream_t stream);
  ~CudnnAttention();
  CudnnAttention(const CudnnAttention&) = delete;
  CudnnAttention& operator=(const CudnnAttention&) = delete;

  // As encoder_attention (kernels.h): softmax(Q K^T * scale) V per head, qkv [n][3 * heads * 64]
  // (Q, K and V at column 0, heads*64 and 2*heads*64, biases added), out [n][heads * 64] (row
  // stride ldo). T: __half or __nv_bfloat16. Queued on the stream; the plan for each shape is built
  // on its first call. Throws auris::Error where cuDNN refuses the shape.
  template <typename T>
  void encoder_attention(const T* qkv, int n, int heads, float scale, T* out, int ldo);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace auris::cuda
