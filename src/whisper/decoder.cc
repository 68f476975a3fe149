#include "whisper/decoder.h"

#include <dnnl.h>

#include <cmath>
#include <string>

#include "auris/error.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/norm_activation.h"

namespace auris {

void Decoder::embed(const int* tokens, int n, Mode mode, int position) {
  const ModelDims& d = model_.dims;
  const int width = d.n_text_state;
  x_.resize(static_cast<size_t>(n) * width);
  for (int i = 0; i < n; ++i) {
    const int pos = mode == Mode::kPrefill ? position + i : position;
    if (tokens[i] < 0 || tokens[i] >= d.n_vocab)
      throw Error("token id " + std::to_string(tokens[i]) + " is outside the vocabulary (0.." +
                  std::to_string(d.n_vocab - 1) + ")");
    if (pos >= d.n_text_ctx)
      throw Error("decoder context is full: Whisper decodes at most " + std::to_string(d.n_text_ctx) + " tokens");
    const float* p = model_.text_positions.data() + static_cast<size_t>(pos) * width;
    float* xi = x_.data() + static_cast<size_t>(i) * width;
    model_.token_embedding.weight_row(tokens[i], xi);
    for (int c = 0; c < width; ++c) xi[c] += p[c];
  }
}

void Decoder::layer(int index, int n, Mode mode, const CrossKVCache& cross, SelfKVCache& self) {
  const DecoderBlock& blk = model_.decoder_blocks[index];
  const int width = model_.dims.n_text_state;
  const int n_head = model_.dims.n_text_head;
  const int d_head = width / n_head;
  const long size = static_cast<long>(n) * width;
  normed_.resize(size);
  qkv_.resize(size * 3);
  attended_.resize(size);
  projected_.resize(size);
  hidden_.resize(size * 4);
  const int start = self.length();

  // Self-attention: one fused QKV GEMM; K/V appended to the static cache; attention over the prefix.
  layer_norm(x_.data(), n, width, blk.attn_ln.gamma.data(), blk.attn_ln.beta.data(), normed_.data());
  blk.qkv.forward(normed_.data(), n, qkv_.data());
  for (int i = 0; i < n; ++i) {
    const int row = mode == Mode::kPrefill ? 0 : i;
    const int pos = mode == Mode::kPrefill ? start + i : start;
    const float* src = qkv_.data() + static_cast<size_t>(i) * 3 * width;
    self.store(index, row, pos, src + width, src + 2 * width);
  }
  if (mode == Mode::kPrefill) {
    attention({qkv_.data(), 3 * width, n, self.keys(index, 0), d_head, self.values(index, 0), d_head, start + n, n_head,
               d_head, /*causal_offset=*/start, self.head_stride(), self.head_stride()},
              attended_.data(), width, scratch_);
  } else {
    step_self_attention(index, n, start, self);
  }
  blk.attn_out.forward(attended_.data(), n, projected_.data());
  add_inplace(x_.data(), projected_.data(), size);

  // Cross-attention: Q only; K/V come from the window's cache, shared by all rows.
  layer_norm(x_.data(), n, width, blk.cross_ln.gamma.data(), blk.cross_ln.beta.data(), normed_.data());
  blk.cross_query.forward(normed_.data(), n, projected_.data());
  if (capture_heads_) capture_cross_scores(index, n, cross);
  AttentionInput over_window{projected_.data(), width, n, nullptr, /*ldk=*/0, nullptr,
                             cross.values_row_stride(), cross.n_ctx(), n_head, d_head, /*causal_offset=*/-1,
                             cross.head_stride(), cross.head_stride(), /*keys_in_panels=*/true};
  if (cross.int8()) {
    over_window.k_int8 = cross.keys_int8(index);
    over_window.v_int8 = cross.values_int8(index);
    over_window.key_scales = cross.key_scales(index);
    over_window.value_scales = cross.value_scales(index);
    over_window.scale_head_stride = cross.scale_head_stride();
  } else if (cross.fp16()) {
    over_window.k_fp16 = cross.keys_fp16(index);
    over_window.v_fp16 = cross.values_fp16(index);
  } else {
    over_window.k = cross.keys(index);
    over_window.v = cross.values(index);
  }
  attention(over_window, attended_.data(), width, scratch_);
  blk.cross_out.forward(attended_.data(), n, projected_.data());
  add_inplace(x_.data(), projected_.data(), size);

  layer_norm(x_.data(), n, width, blk.mlp_ln.gamma.data(), blk.mlp_ln.beta.data(), normed_.data());
  blk.mlp_in.forward_gelu(normed_.data(), n, hidden_.data());
  blk.mlp_out.forward(hidden_.data(), n, projected_.data());
  add_inplace(x_.data(), projected_.data(), size);
}

void Decoder::step_self_attention(int index, int n, int start, SelfKVCache& self) {
  const int width = model_.dims.n_text_state;
  const int n_head = model_.dims.n_text_head;
  const int d_head = width / n_head;
  // Only the filled prefix [0, start] is read, unless the ablation reads the whole capacity with a
  // causal mask (the scores past the prefix are computed, then masked away).
  const int end = attend_full_self_cache_ ? self.capacity() : start + 1;
  const int shared = n > 1 ? self.shared_length() : 0;  // one row reads row 0's positions in one go
  auto row_query = [&](int r) { return qkv_.data() + static_cast<size_t>(r) * 3 * width; };
  if (shared == 0) {
    for (int r = 0; r < n; ++r)
      attention({row_query(r), 3 * width, 1, self.keys(index, r), d_head, self.values(index, r), d_head, end, n_head, d_head,
                 /*causal_offset=*/start, self.head_stride(), self.head_stride()},
                attended_.data() + static_cast<size_t>(r) * width, width, scratch_);
    return;
  }
  // The prompt every row shares is read once for all rows, then each row's own positions.
  own_keys_.resize(n);
  own_values_.resize(n);
  const size_t own_start = static_cast<size_t>(shared) * d_head;  // within each head's run
  for (int r = 0; r < n; ++r) {
    own_keys_[r] = self.keys(index, r) + own_start;
    own_values_[r] = self.values(index, r) + own_start;
  }
  attention_over_shared_prompt({qkv_.data(), 3 * width, n, self.keys(index, 0), self.values(index, 0), shared,
                                own_keys_.data(), own_values_.data(), end - shared, d_head, n_head, d_head,
                                /*own_causal_offset=*/start - shared, self.head_stride()},
                               attended_.data(), width, scratch_);
}

void Decoder::capture_cross_scores(int layer, int n, const CrossKVCache& cross) {
  const int width = model_.dims.n_text_state;
  const int d_head = width / model_.dims.n_text_head;
  const int n_ctx = cross.n_ctx();
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_head));
  for (size_t i = 0; i < capture_heads_->size(); ++i) {
    const auto [head_layer, head] = (*capture_heads_)[i];
    if (head_layer != layer) continue;
    float* out = capture_out_->data() + i * static_cast<size_t>(n) * n_ctx;
    head_keys_.resize(static_cast<size_t>(d_head) * n_ctx);  // [d_head x n_ctx]
    cross.head_keys(layer, head, head_keys_.data());
    dnnl_sgemm('N', 'N', n, n_ctx, d_head, scale, projected_.data() + head * d_head, width, head_keys_.data(), n_ctx, 0.0f, out,
               n_ctx);
  }
}

void Decoder::prefill_capturing_cross_attention(const std::vector<int>& tokens, const CrossKVCache& cross,
                                                SelfKVCache& self, const std::vector<int>& logit_positions,
                                                std::vector<float>& logits,
                                                const std::vector<std::pair<int, int>>& heads,
                                                std::vector<float>& qk_out) {
  for (const auto& [layer, head] : heads)
    if (layer < 0 || layer >= model_.dims.n_text_layer || head < 0 || head >= model_.dims.n_text_head)
      throw Error("alignment head (" + std::to_string(layer) + ", " + std::to_string(head) + ") is not in the model");
  qk_out.assign(heads.size() * tokens.size() * cross.n_ctx(), 0.0f);
  capture_heads_ = &heads;
  capture_out_ = &qk_out;
  try {
    prefill(tokens, cross, self, logit_positions, logits);
  } catch (...) {
    capture_heads_ = nullptr;
    capture_out_ = nullptr;
    throw;
  }
  capture_heads_ = nullptr;
  capture_out_ = nullptr;
}

void Decoder::project_logits(const std::vector<int>& rows, std::vector<float>& logits) {
  const int width = model_.dims.n_text_state;
  gathered_.resize(rows.size() * width);
  for (size_t i = 0; i < rows.size(); ++i)
    layer_norm(x_.data() + static_cast<size_t>(rows[i]) * width, 1, width, model_.decoder_ln.gamma.data(),
               model_.decoder_ln.beta.data(), gathered_.data() + i * width);
  logits.resize(rows.size() * model_.dims.n_vocab);
  model_.token_embedding.forward(gathered_.data(), static_cast<int>(rows.size()), logits.data());
}

void Decoder::prefill(const std::vector<int>& tokens, const CrossKVCache& cross, SelfKVCache& self,
                      const std::vector<int>& logit_positions, std::vector<float>& logits) {
  const int n = static_cast<int>(tokens.size());
  if (n == 0) throw Error("decoder prefill needs at least one token");
  self.set_length(0);
  embed(tokens.data(), n, Mode::kPrefill, 0);
  for (int l = 0; l < model_.dims.n_text_layer; ++l) layer(l, n, Mode::kPrefill, cross, self);
  self.set_length(n);
  for (int p : logit_positions)
    if (p < 0 || p >= n) throw Error("prefill logits requested for a position outside the prompt");
  project_logits(logit_positions, logits);
}

void Decoder::step(const std::vector<int>& tokens, const CrossKVCache& cross, SelfKVCache& self,
                   std::vector<float>& logits) {
  const int rows = static_cast<int>(tokens.size());
  if (rows > self.max_rows()) throw Error("decode step has more rows than the cache was sized for");
  embed(tokens.data(), rows, Mode::kStep, self.length());
  for (int l = 0; l < model_.dims.n_text_layer; ++l) layer(l, rows, Mode::kStep, cross, self);
  self.set_length(self.length() + 1);
  std::vector<int> all(rows);
  for (int r = 0; r < rows; ++r) all[r] = r;
  project_logits(all, logits);
}

}  // namespace auris
