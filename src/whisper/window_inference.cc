#include "whisper/window_inference.h"

#include <chrono>

#include "auris/error.h"
#include "whisper/inference_calls.h"

namespace auris {

WindowInference::WindowInference(const WhisperModel& model) : model_(model), decoder_(model) {}

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

void WindowInference::set_window(const float* encoder_out) {
  encoder_out_ = encoder_out;
  compute_cross_kv();
  has_window_ = true;
  reset();
}

void WindowInference::compute_cross_kv() {
  const auto start = std::chrono::steady_clock::now();
  cross_.compute(model_, encoder_out_, cross_projection_);
  times_.cross_kv_seconds += seconds_since(start);
}

void WindowInference::set_ablations(bool recompute_cross_kv_each_step, bool attend_full_self_cache) {
  recompute_cross_kv_each_step_ = recompute_cross_kv_each_step;
  decoder_.set_attend_full_self_cache(attend_full_self_cache);
}

void WindowInference::ensure_rows(int rows) {
  if (self_ && self_->max_rows() >= rows) return;
  const ModelDims& d = model_.dims;
  self_ = std::make_unique<SelfKVCache>(d.n_text_layer, rows, d.n_text_ctx, d.n_text_head, d.n_text_state / d.n_text_head);
}

void WindowInference::reset() {
  if (self_) self_->set_length(0);
}

void WindowInference::logits(const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out,
                             const std::vector<int>& extra_positions, std::vector<float>* extra_logits_out) {
  if (!has_window_) throw Error("decoder has no audio window: call set_window() first");
  if (!self_ || self_->length() == 0) {
    const PrefillCall call = prefill_call(tokens, extra_positions, extra_logits_out);
    ensure_rows(call.rows);
    const auto start = std::chrono::steady_clock::now();
    decoder_.prefill(call.prompt, cross_, *self_, call.logit_positions, prefill_logits_);
    times_.prefill_seconds += seconds_since(start);
    ++times_.prefills;
    self_->share_prefix();
    replicate_prefill_logits(call, prefill_logits_, model_.dims.n_vocab, logits_out, extra_logits_out);
    return;
  }
  if (static_cast<int>(tokens.size()) > self_->max_rows()) throw Error("more sequences than were prefilled");
  const std::vector<int> next = step_tokens(tokens, self_->length());
  const auto start = std::chrono::steady_clock::now();
  if (recompute_cross_kv_each_step_) compute_cross_kv();
  decoder_.step(next, cross_, *self_, logits_out);
  times_.step_seconds += seconds_since(start);
  ++times_.steps;
  times_.step_rows += static_cast<long long>(next.size());
}

void WindowInference::alignment_pass(const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                                     const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
                                     std::vector<float>& cross_scores) {
  if (!has_window_) throw Error("decoder has no audio window: call set_window() first");
  if (tokens.empty()) throw Error("alignment needs at least one token");
  ensure_rows(1);
  decoder_.prefill_capturing_cross_attention(tokens, cross_, *self_, logit_positions, logits, heads, cross_scores);
  self_->set_length(0);  // the pass is not a decode: the next logits() call starts a fresh prefill
}

void WindowInference::rearrange_kv_cache(const std::vector<int>& source_rows) {
  if (self_) self_->reorder(source_rows);
}

}  // namespace auris
