// Matrix products on the GPU through cuBLAS, in the row-major layouts the engine keeps (PyTorch's
// [out x in] weights). Inputs of type T (float, __half, __nv_bfloat16) with fp32 accumulation: fp16 and
// bf16 run on tensor cores; fp32 stays true fp32 (CUBLAS_COMPUTE_32F never rounds to TF32) so that
// parity runs compare with the CPU.
#pragma once

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace auris::cuda {

class Blas {
 public:
  // workspace: device memory cuBLAS uses instead of allocating, which a CUDA graph capture forbids.
  Blas(cudaStream_t stream, void* workspace, size_t workspace_bytes);
  ~Blas();
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;

  // y[rows x out] (row stride ldy, type Y: T or float) = x[rows x in] (row stride ldx) W^T, W [out x in].
  template <typename T, typename Y>
  void linear(const T* x, int rows, int in, int ldx, const T* w, int out, Y* y, int ldy) const;

  // Per-head operands: head h of a [rows x d] operand starts at base + h*head_stride, row stride ld
  // (heads side by side in a row: head_stride d; head-major caches: head_stride rows*d).
  template <typename T>
  struct Heads {
    const T* base;
    int ld;
    long long head_stride;
  };
  // For each head h of `batch`: scores_h [n_q x n_kv] (fp32, packed, head after head) = q_h k_h^T.
  template <typename T>
  void head_scores(Heads<T> q, Heads<T> k, int n_q, int n_kv, int d, int batch, float* scores) const;
  // For each head h: out_h [n_q x d] at out + h*d (row stride ldo) = p_h [n_q x n_kv] (packed, head
  // after head) v_h.
  template <typename T>
  void head_values(const T* p, Heads<T> v, int n_q, int n_kv, int d, int batch, T* out, int ldo) const;

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace auris::cuda
