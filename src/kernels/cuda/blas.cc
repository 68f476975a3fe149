#include "kernels/cuda/blas.h"

#include "kernels/cuda/cuda_check.h"

namespace auris::cuda {

namespace {

template <typename T>
constexpr cudaDataType_t data_type();
template <>
constexpr cudaDataType_t data_type<float>() { return CUDA_R_32F; }
template <>
constexpr cudaDataType_t data_type<__half>() { return CUDA_R_16F; }
template <>
constexpr cudaDataType_t data_type<__nv_bfloat16>() { return CUDA_R_16BF; }

}  // namespace

Blas::Blas(cudaStream_t stream, void* workspace, size_t workspace_bytes) {
  AURIS_CUDA_CHECK(cublasCreate(&handle_));
  AURIS_CUDA_CHECK(cublasSetStream(handle_, stream));
  AURIS_CUDA_CHECK(cublasSetWorkspace(handle_, workspace, workspace_bytes));
}

Blas::~Blas() {
  if (handle_) cublasDestroy(handle_);
}

// Row-major Y = X W^T is column-major Y^T = W X^T: W is column-major [in x out] (lda = in), used
// transposed; X is column-major [in x rows] (ldb = ldx).
template <typename T, typename Y>
void Blas::linear(const T* x, int rows, int in, int ldx, const T* w, int out, Y* y, int ldy) const {
  if (rows == 0) return;
  const float alpha = 1.0f, beta = 0.0f;
  AURIS_CUDA_CHECK(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, out, rows, in, &alpha, w, data_type<T>(), in, x,
                                data_type<T>(), ldx, &beta, y, data_type<Y>(), ldy, CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT));
}

// scores (row-major [n_q x n_kv]) = column-major [n_kv x n_q] = K_h Q_h^T: K_h column-major
// [d x n_kv] (lda = k.ld) transposed, Q_h column-major [d x n_q] (ldb = q.ld).
template <typename T>
void Blas::head_scores(Heads<T> q, Heads<T> k, int n_q, int n_kv, int d, int batch, float* scores) const {
  const float alpha = 1.0f, beta = 0.0f;
  AURIS_CUDA_CHECK(cublasGemmStridedBatchedEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, n_kv, n_q, d, &alpha, k.base,
                                              data_type<T>(), k.ld, k.head_stride, q.base, data_type<T>(), q.ld,
                                              q.head_stride, &beta, scores, CUDA_R_32F, n_kv,
                                              static_cast<long long>(n_q) * n_kv, batch, CUBLAS_COMPUTE_32F,
                                              CUBLAS_GEMM_DEFAULT));
}

// out (row-major [n_q x d], ldo) = column-major [d x n_q] = V_h^T P_h^T: V_h column-major [d x n_kv]
// (lda = v.ld), P_h column-major [n_kv x n_q] (ldb = n_kv).
template <typename T>
void Blas::head_values(const T* p, Heads<T> v, int n_q, int n_kv, int d, int batch, T* out, int ldo) const {
  const float alpha = 1.0f, beta = 0.0f;
  AURIS_CUDA_CHECK(cublasGemmStridedBatchedEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, d, n_q, n_kv, &alpha, v.base,
                                              data_type<T>(), v.ld, v.head_stride, p, data_type<T>(), n_kv,
                                              static_cast<long long>(n_q) * n_kv, &beta, out, data_type<T>(), ldo, d,
                                              batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

#define INSTANTIATE(T)                                                                                         \
  template void Blas::linear<T, T>(const T*, int, int, int, const T*, int, T*, int) const;                     \
  template void Blas::head_scores<T>(Heads<T>, Heads<T>, int, int, int, int, float*) const;                   \
  template void Blas::head_values<T>(const T*, Heads<T>, int, int, int, int, T*, int) const;
INSTANTIATE(float)
INSTANTIATE(__half)
INSTANTIATE(__nv_bfloat16)
template void Blas::linear<__half, float>(const __half*, int, int, int, const __half*, int, float*, int) const;
template void Blas::linear<__nv_bfloat16, float>(const __nv_bfloat16*, int, int, int, const __nv_bfloat16*, int, float*,
                                                 int) const;

}  // namespace auris::cuda
