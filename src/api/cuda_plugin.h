// The CUDA backend plugin (whisper/cuda/cuda_backend.h), loaded on first use.
#pragma once

#include "whisper/cuda/cuda_backend.h"

namespace auris {

// Loads libauris_cuda.so ($AURIS_CUDA_PLUGIN, else beside the library or executable auris was
// loaded from: libauris.so, the Python extension, the command) once and checks
// that CUDA can run here; throws auris::Error saying what is missing and what to do.
const CudaBackend& cuda_backend();

}  // namespace auris
