// The CUDA backend as the rest of auris sees it: a plugin (libauris_cuda.so, built where CMake finds
// the CUDA toolkit) that the API loads with dlopen only when a model is loaded with Device::kCuda,
// so a CPU run never maps the CUDA and cuBLAS libraries (hundreds of MB). This header is the
// plugin's whole interface; it needs no CUDA headers.
#pragma once

#include <memory>

#include "auris/model.h"
#include "whisper/batch_passes.h"
#include "whisper/window_engine.h"
#include "whisper/whisper_model.h"

namespace auris {

// The model's weights on the device (whisper/cuda/cuda_weights.h); opaque outside the plugin.
struct CudaWeights;

struct CudaBackend {
  int abi_version;  // kCudaBackendAbi of the plugin's build
  // Throws auris::Error saying why CUDA cannot run here (no driver, no device, too old a device).
  void (*require_device)();
  // The model's fp32 weights (assemble_whisper_model) uploaded once in the compute type's precision.
  std::shared_ptr<const CudaWeights> (*upload)(const WhisperModel& model, ComputeType compute_type);
  // Bytes of weights a decode step reads on the device.
  size_t (*decode_weight_bytes)(const CudaWeights& weights);
  // An engine (encoder, cross K/V, decoder with CUDA-graph steps) over uploaded weights.
  std::unique_ptr<WindowEngine> (*make_engine)(std::shared_ptr<const CudaWeights> weights);
  // A batch's windows, `slots` of them, whose steps share one weight read (batch/window_batch.h).
  std::unique_ptr<BatchPasses> (*make_batch_passes)(std::shared_ptr<const CudaWeights> weights, int slots);
};

// Changes whenever CudaBackend or a type it passes changes layout: a plugin from another build is
// refused rather than called.
constexpr int kCudaBackendAbi = 2;

}  // namespace auris

// The plugin's one exported symbol.
extern "C" const auris::CudaBackend* auris_cuda_backend();
