// CUDA runtime and cuBLAS status codes turned into auris::Error, naming the call that failed.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "auris/error.h"

namespace auris::cuda {

inline void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw Error(std::string("CUDA error in ") + call + ": " + cudaGetErrorString(status));
}

inline void check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("cuBLAS error in ") + call + ": " + cublasGetStatusString(status));
}

}  // namespace auris::cuda

#define AURIS_CUDA_CHECK(call) ::auris::cuda::check((call), #call)
// After a <<<...>>> launch: its own failure (a bad configuration), named by the kernel.
#define AURIS_CUDA_CHECK_LAUNCH(kernel) ::auris::cuda::check(cudaGetLastError(), "the launch of " #kernel)
