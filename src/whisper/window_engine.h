// One backend's whole engine for a 30-s window: the encoder, the window's cross-attention K/V
// computed once, and the decoder behind Inference that every decode of the window (greedy, beams,
// temperature retries) calls. The seek loop (transcribe/seek_loop.cc) drives it without knowing
// whether it runs on the CPU (cpu_window_engine.h) or a CUDA device (cuda/cuda_window_engine.h).
#pragma once

#include <utility>
#include <vector>

#include "audio/mel.h"
#include "auris/transcribe.h"
#include "decoding/inference.h"
#include "whisper/engine_counters.h"

namespace auris {

class WindowEngine : public Inference {
 public:
  // Encodes a [n_mels x 3000] log-mel window and computes its cross-attention K/V; resets the
  // decoder. Throws auris::Error when the window does not fit the model.
  virtual void set_window(const LogMel& window) = 0;

  // openai timing.py's forward pass over the current window: logits at logit_positions
  // [positions x n_vocab] and the alignment heads' pre-softmax cross-attention scores
  // [heads x tokens x n_audio_ctx]. Resets the decoder.
  virtual void alignment_pass(const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                              const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
                              std::vector<float>& cross_scores) = 0;

  // Rows multiplied by each projection and the time spent in each stage, since construction.
  virtual EngineCounters counters() const = 0;
  virtual void set_ablations(const EngineAblations& ablations) = 0;
};

}  // namespace auris
