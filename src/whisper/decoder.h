// The text decoder over the two caches of kv_cache.h. prefill() runs a whole prompt in one pass and
// computes logits only where asked; step() advances every row by one token. Neither reads the encoder
// output: cross-attention projects only Q and attends over the window's CrossKVCache.
#pragma once

#include <vector>

#include "whisper/kv_cache.h"
#include "whisper/whisper_model.h"

namespace auris {

class Decoder {
 public:
  explicit Decoder(const WhisperModel& model) : model_(model) {}

  // tokens: one row's prompt, written to row 0 of `self` at positions [0, n); self's length becomes n.
  // logits: [logit_positions.size() x n_vocab], one row per requested prompt position.
  void prefill(const std::vector<int>& tokens, const CrossKVCache& cross, SelfKVCache& self,
               const std::vector<int>& logit_positions, std::vector<float>& logits);
  // Like prefill, and also captures the pre-softmax cross-attention scores q·k/sqrt(d_head) of the
  // given (layer, head) pairs: qk_out [heads.size() x tokens x n_audio_ctx]. openai's timing.py reads
  // these from its cross-attention hooks to align words with audio.
  void prefill_capturing_cross_attention(const std::vector<int>& tokens, const CrossKVCache& cross, SelfKVCache& self,
                                         const std::vector<int>& logit_positions, std::vector<float>& logits,
                                         const std::vector<std::pair<int, int>>& heads, std::vector<float>& qk_out);
  // tokens[r] is row r's next token, at position self.length(); logits: [rows x n_vocab].
  void step(const std::vector<int>& tokens, const CrossKVCache& cross, SelfKVCache& self, std::vector<float>& logits);

  // Ablation: steps attend over the cache's whole capacity, masking the unfilled positions.
  void set_attend_full_self_cache(bool on) { attend_full_self_cache_ = on; }

 private:
  enum class Mode { kPrefill, kStep };
  void embed(const int* tokens, int n, Mode mode, int position);
  void layer(int index, int n, Mode mode, const CrossKVCache& cross, SelfKVCache& self);
  // A step's self-attention of n rows at position `start` over layer `index`'s cache.
  void step_self_attention(int index, int n, int start, SelfKVCache& self);
  void capture_cross_scores(int layer, int n, const CrossKVCache& cross);
  void project_logits(const std::vector<int>& rows, std::vector<float>& logits);

  const WhisperModel& model_;
  bool attend_full_self_cache_ = false;
  // Set only during prefill_capturing_cross_attention.
  const std::vector<std::pair<int, int>>* capture_heads_ = nullptr;
  std::vector<float>* capture_out_ = nullptr;
  std::vector<float> x_, normed_, qkv_, attended_, projected_, hidden_, scratch_, gathered_;
  std::vector<const float*> own_keys_, own_values_;  // each row's positions after the shared prompt
  std::vector<float> head_keys_;  // an alignment head's cross keys, [d_head x n_ctx] fp32
};

}  // namespace auris
