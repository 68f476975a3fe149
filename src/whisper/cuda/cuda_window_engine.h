// The CUDA engine for one window, or for a batch's windows (cuda_window_engine.cc describes it).
#pragma once

#include <memory>

#include "whisper/cuda/cuda_backend.h"

namespace auris::cuda {

std::unique_ptr<WindowEngine> make_window_engine(std::shared_ptr<const CudaWeights> weights);
// `slots` windows decoded together: each step reads the weights once for every slot's rows.
std::unique_ptr<BatchPasses> make_batch_passes(std::shared_ptr<const CudaWeights> weights, int slots);

}  // namespace auris::cuda
