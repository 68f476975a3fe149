// The engine behind the decoding algorithms (decoding/inference.h) for one 30-s window.
// set_window() computes the window's cross-attention K/V once; every decode that follows (greedy,
// each beam, each temperature retry) reuses them, and reset() clears only the self-attention cache.
#pragma once

#include <memory>
#include <vector>

#include "decoding/inference.h"
#include "whisper/decoder.h"
#include "whisper/kv_cache.h"

namespace auris {

class WindowInference : public Inference {
 public:
  explicit WindowInference(const WhisperModel& model);

  // encoder_out: [n_audio_ctx x n_audio_state] of the new window.
  void set_window(const float* encoder_out);

  void logits(const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out, int extra_position = -1,
              std::vector<float>* extra_logits_out = nullptr) override;
  void rearrange_kv_cache(const std::vector<int>& source_rows) override;
  void reset() override;
  int n_vocab() const override { return model_.dims.n_vocab; }

  const CrossKVCache& cross_cache() const { return cross_; }
  int cached_length() const { return self_ ? self_->length() : 0; }

 private:
  void ensure_rows(int rows);

  const WhisperModel& model_;
  Decoder decoder_;
  CrossKVCache cross_;
  std::unique_ptr<SelfKVCache> self_;  // allocated once for the largest row count seen
  bool has_window_ = false;
  std::vector<float> prefill_logits_;
};

}  // namespace auris
