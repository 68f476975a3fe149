// What a loaded auris::Model holds: the runtime weights (on the CPU, or uploaded to a CUDA device)
// and the tokenizer built from the model's own vocabulary; and the engine that runs them.
#pragma once

#include <memory>

#include "auris/model.h"
#include "batch/window_batch.h"
#include "tokenizer/tokenizer.h"
#include "whisper/cuda/cuda_backend.h"
#include "whisper/window_engine.h"
#include "whisper/whisper_model.h"

namespace auris {

struct Model::Impl {
  ModelInfo info;
  WhisperModel weights;  // on the CPU; for CUDA only the dimensions
  Tokenizer tokenizer;
  std::shared_ptr<const CudaWeights> cuda_weights;  // set for Device::kCuda
};

// The library's own access to what a public Model hides.
struct ModelAccess {
  using Impl = Model::Impl;
  static const Impl& of(const Model& model) { return *model.impl_; }
};
using ModelImpl = ModelAccess::Impl;
inline const ModelImpl& model_impl(const Model& model) { return ModelAccess::of(model); }

// The engine of the model's device, for one Transcriber.
std::unique_ptr<WindowEngine> make_window_engine(const ModelImpl& model);
// What runs `slots` windows at once on the model's device: a WindowBatch over the device's
// BatchPasses, whose passes share one weight read.
std::unique_ptr<WindowBatch> make_window_batch(const ModelImpl& model, int slots);

// Bytes of weights one decode step streams, on whichever device holds them.
size_t decode_weight_bytes(const WhisperModel& model, const CudaWeights* cuda_weights);

}  // namespace auris
