// The text decoder over the two caches of kv_cache.h. prefill() runs a whole prompt in one pass and
// computes logits only where asked; step() advances every row by one token. Neither reads the encoder
// output: cross-attention projects only Q and attends over the window's CrossKVCache.
#pragma once

#include <vector>

#include "whisper/kv_cache.h"
#include "whisper/whisper_model.h"

namespace auris {

// One window's part of a decoder pass over several windows (batched decoding): its caches, its
// tokens, and where its logits go. Prefill: `tokens` is row 0's prompt, written at positions [0, n);
// step: `tokens[r]` is row r's next token, at position self->length().
struct DecoderGroup {
  const CrossKVCache* cross = nullptr;
  SelfKVCache* self = nullptr;
  bool prefill = false;
  std::vector<int> tokens;
  // Prefill: the prompt positions whose logits are wanted; a step gives every row's.
  std::vector<int> logit_positions;
  std::vector<float>* logits = nullptr;  // [logit rows x n_vocab]
};

class Decoder {
 public:
  explicit Decoder(const WhisperModel& model) : model_(model) {}

  // Every group's prefill or step in one pass: each projection multiplies the rows of all groups at
  // once (one read of its weights), and each group attends over its own caches.
  void forward(std::vector<DecoderGroup>& groups);

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
  // Where a group's rows sit among the pass's rows, and the position its first row is at.
  struct Span {
    int first_row, rows, start;
  };
  struct PassOps;  // the layers' ops (layer_sequence.h) over this decoder's buffers
  void embed(const DecoderGroup& group, const Span& span);
  void self_attention(int index, const DecoderGroup& group, const Span& span);
  // A step's self-attention of a group's rows over layer `index`'s cache.
  void step_self_attention(int index, const Span& span, SelfKVCache& self);
  void cross_attention(int index, const CrossKVCache& cross, const Span& span);
  void capture_cross_scores(int layer, int n, const CrossKVCache& cross);
  void project_logits(const std::vector<int>& rows, std::vector<float>& logits);

  const WhisperModel& model_;
  bool attend_full_self_cache_ = false;
  // Set only during prefill_capturing_cross_attention.
  const std::vector<std::pair<int, int>>* capture_heads_ = nullptr;
  std::vector<float>* capture_out_ = nullptr;
  std::vector<float> x_, normed_, qkv_, attended_, projected_, hidden_, scratch_, gathered_, all_logits_;
  std::vector<float*> row_destinations_;  // where each row of all_logits_ goes
  std::vector<int> logit_rows_;
  std::vector<Span> spans_;
  std::vector<const float*> own_keys_, own_values_;  // each row's positions after the shared prompt
  std::vector<float> head_keys_;  // an alignment head's cross keys, [d_head x n_ctx] fp32
};

}  // namespace auris
