// The CUDA engine for one window (cuda_window_engine.cc describes it).
#pragma once

#include <memory>

#include "whisper/cuda/cuda_backend.h"

namespace auris::cuda {

std::unique_ptr<WindowEngine> make_window_engine(std::shared_ptr<const CudaWeights> weights);

}  // namespace auris::cuda
