// The CPU engine: the encoder and WindowInference (the decoder over the two caches) on the model's
// CPU weights.
#pragma once

#include "whisper/encoder.h"
#include "whisper/window_engine.h"
#include "whisper/window_inference.h"

namespace auris {

class CpuWindowEngine : public WindowEngine {
 public:
  explicit CpuWindowEngine(const WhisperModel& model) : model_(model), encoder_(model), inference_(model) {}

  void set_window(const LogMel& window) override;
  void alignment_pass(const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                      const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
                      std::vector<float>& cross_scores) override {
    inference_.alignment_pass(tokens, logit_positions, heads, logits, cross_scores);
  }
  EngineCounters counters() const override;
  void set_ablations(const EngineAblations& ablations) override {
    inference_.set_ablations(ablations.recompute_cross_kv_each_step, ablations.attend_full_self_cache);
  }

  void logits(const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out,
              const std::vector<int>& extra_positions = {}, std::vector<float>* extra_logits_out = nullptr) override {
    inference_.logits(tokens, logits_out, extra_positions, extra_logits_out);
  }
  void rearrange_kv_cache(const std::vector<int>& source_rows) override { inference_.rearrange_kv_cache(source_rows); }
  void reset() override { inference_.reset(); }
  int n_vocab() const override { return inference_.n_vocab(); }

 private:
  const WhisperModel& model_;
  Encoder encoder_;
  WindowInference inference_;
  std::vector<float> encoder_out_;
  long long encoder_windows_ = 0;
  double encoder_seconds_ = 0;
};

}  // namespace auris
