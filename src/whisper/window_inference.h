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

  void logits(const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out,
              const std::vector<int>& extra_positions = {}, std::vector<float>* extra_logits_out = nullptr) override;
  void rearrange_kv_cache(const std::vector<int>& source_rows) override;
  void reset() override;
  int n_vocab() const override { return model_.dims.n_vocab; }

  // openai timing.py's forward pass: runs `tokens` (one row, from the start sequence) over this
  // window and returns the logits at logit_positions [positions x n_vocab] and the pre-softmax
  // cross-attention scores of the alignment heads [heads x tokens x n_audio_ctx]. Resets the cache.
  void alignment_pass(const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                      const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
                      std::vector<float>& cross_scores);

  const CrossKVCache& cross_cache() const { return cross_; }

  // Wall time of the decoder's passes, for the benchmark's per-stage figures.
  struct StageTimes {
    double cross_kv_seconds = 0;
    long long prefills = 0;
    double prefill_seconds = 0;
    long long steps = 0;
    long long step_rows = 0;
    double step_seconds = 0;
  };
  const StageTimes& stage_times() const { return times_; }
  void set_ablations(bool recompute_cross_kv_each_step, bool attend_full_self_cache);
  int cached_length() const { return self_ ? self_->length() : 0; }

 private:
  void ensure_rows(int rows);
  void compute_cross_kv();

  const WhisperModel& model_;
  Decoder decoder_;
  CrossKVCache cross_;
  std::vector<float> cross_projection_;  // CrossKVCache::compute's scratch
  std::unique_ptr<SelfKVCache> self_;  // allocated once for the largest row count seen
  bool has_window_ = false;
  const float* encoder_out_ = nullptr;  // the window's; read again only by the recompute ablation
  bool recompute_cross_kv_each_step_ = false;
  StageTimes times_;
  std::vector<float> prefill_logits_;
};

}  // namespace auris
