// Which engine runs a model: the CPU's, or the CUDA device's when the weights were uploaded there;
// and which runner runs many of its windows at once.
#include "api/cuda_plugin.h"
#include "api/model_impl.h"
#include "batch/window_batch.h"
#include "whisper/cpu_window_engine.h"

namespace auris {

std::unique_ptr<WindowEngine> make_window_engine(const ModelImpl& model) {
  if (model.cuda_weights) return cuda_backend().make_engine(model.cuda_weights);
  return std::make_unique<CpuWindowEngine>(model.weights);
}

std::unique_ptr<WindowBatch> make_window_batch(const ModelImpl& model, int slots) {
  if (model.cuda_weights) return std::make_unique<WindowBatch>(cuda_backend().make_batch_passes(model.cuda_weights, slots));
  return std::make_unique<WindowBatch>(model.weights, slots);
}

size_t decode_weight_bytes(const WhisperModel& model, const CudaWeights* cuda_weights) {
  return cuda_weights ? cuda_backend().decode_weight_bytes(*cuda_weights) : model.decode_weight_bytes();
}

}  // namespace auris
