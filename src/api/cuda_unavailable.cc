// Stands in for src/whisper/cuda in builds without the CUDA toolkit (CMake compiles one or the
// other): asking for the device says how to get it.
#include "auris/error.h"
#include "whisper/cuda/cuda_engine.h"

namespace auris {

namespace {
[[noreturn]] void unavailable() {
  throw Error("this auris was built without CUDA (CMake found no CUDA toolkit): use --device cpu, or rebuild "
              "where nvcc and cuBLAS are installed (/usr/local/cuda)");
}
}  // namespace

void require_cuda_device() { unavailable(); }
std::shared_ptr<const CudaWeights> upload_to_cuda(const WhisperModel&, ComputeType) { unavailable(); }
size_t cuda_decode_weight_bytes(const CudaWeights&) { unavailable(); }
std::unique_ptr<WindowEngine> make_cuda_window_engine(std::shared_ptr<const CudaWeights>) { unavailable(); }

}  // namespace auris
