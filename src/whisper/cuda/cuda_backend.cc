// The plugin's entry point (compiled into libauris_cuda.so only).
#include "whisper/cuda/cuda_backend.h"

#include "kernels/cuda/device.h"
#include "whisper/cuda/cuda_weights.h"
#include "whisper/cuda/cuda_window_engine.h"

extern "C" __attribute__((visibility("default"))) const auris::CudaBackend* auris_cuda_backend() {
  static const auris::CudaBackend backend{auris::kCudaBackendAbi, auris::cuda::require_device, auris::cuda::upload_weights,
                                          auris::cuda::decode_weight_bytes, auris::cuda::make_window_engine,
                                          auris::cuda::make_batch_passes};
  return &backend;
}
