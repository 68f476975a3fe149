// The CUDA backend's entry points, for the API (src/api). Built only when CMake finds the CUDA
// toolkit; src/api/cuda_unavailable.cc stands in otherwise and says so.
#pragma once

#include <memory>

#include "auris/model.h"
#include "whisper/window_engine.h"
#include "whisper/whisper_model.h"

namespace auris {

struct CudaWeights;

// Throws auris::Error saying why CUDA cannot run here.
void require_cuda_device();
// The model's fp32 weights (assemble_whisper_model) uploaded once in the compute type's precision.
std::shared_ptr<const CudaWeights> upload_to_cuda(const WhisperModel& model, ComputeType compute_type);
// Bytes of weights a decode step reads on the device.
size_t cuda_decode_weight_bytes(const CudaWeights& weights);
// An engine (encoder, cross K/V, decoder with CUDA-graph steps) over uploaded weights.
std::unique_ptr<WindowEngine> make_cuda_window_engine(std::shared_ptr<const CudaWeights> weights);

}  // namespace auris
