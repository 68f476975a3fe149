#include "whisper/decoder.h"

#include <dnnl.h>

#include <cmath>
#include <cstring>
#include <string>

#include "auris/error.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/norm_activation.h"
#include "whisper/layer_sequence.h"

namespace auris {

void Decoder::embed(const DecoderGroup& group, const Span& span) {
  const ModelDims& d = model_.dims;
  const int width = d.n_text_state;
  for (int i = 0; i < span.rows; ++i) {
    const int token = group.tokens[static_cast<size_t>(i)];
    const int pos = group.prefill ? span.start + i : span.start;
    if (token < 0 || token >= d.n_vocab)
      throw Error("token id " + std::to_string(token) + " is outside the vocabulary (0.." + std::to_string(d.n_vocab - 1) +
                  ")");
    if (pos >= d.n_text_ctx)
      throw Error("decoder context is full: Whisper decodes at most " + std::to_string(d.n_text_ctx) + " tokens");
    const float* p = model_.text_positions.data() + static_cast<size_t>(pos) * width;
    float* xi = x_.data() + static_cast<size_t>(span.first_row + i) * width;
    model_.token_embedding.weight_row(token, xi);
    for (int c = 0; c < width; ++c) xi[c] += p[c];
  }
}

void Decoder::self_attention(int index, const DecoderGroup& group, const Span& span) {
  const int width = model_.dims.n_text_state;
  const int n_head = model_.dims.n_text_head;
  const int d_head = width / n_head;
  SelfKVCache& self = *group.self;
  const float* qkv = qkv_.data() + static_cast<size_t>(span.first_row) * 3 * width;
  for (int i = 0; i < span.rows; ++i) {
    const int row = group.prefill ? 0 : i;
    const int pos = group.prefill ? span.start + i : span.start;
    const float* src = qkv + static_cast<size_t>(i) * 3 * width;
    self.store(index, row, pos, src + width, src + 2 * width);
  }
  if (!group.prefill) return step_self_attention(index, span, self);
  attention({qkv, 3 * width, span.rows, self.keys(index, 0), d_head, self.values(index, 0), d_head, span.start + span.rows,
             n_head, d_head, /*causal_offset=*/span.start, self.head_stride(), self.head_stride()},
            attended_.data() + static_cast<size_t>(span.first_row) * width, width, scratch_);
}

void Decoder::cross_attention(int index, const CrossKVCache& cross, const Span& span) {
  const int width = model_.dims.n_text_state;
  const int n_head = model_.dims.n_text_head;
  const int d_head = width / n_head;
  AttentionInput over_window{projected_.data() + static_cast<size_t>(span.first_row) * width,
                             width,
                             span.rows,
                             nullptr,
                             /*ldk=*/0,
                             nullptr,
                             cross.values_row_stride(),
                             cross.n_ctx(),
                             n_head,
                             d_head,
                             /*causal_offset=*/-1,
                             cross.head_stride(),
                             cross.head_stride(),
                             /*keys_in_panels=*/true};
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
  attention(over_window, attended_.data() + static_cast<size_t>(span.first_row) * width, width, scratch_);
}

void Decoder::step_self_attention(int index, const Span& span, SelfKVCache& self) {
  const int width = model_.dims.n_text_state;
  const int n_head = model_.dims.n_text_head;
  const int d_head = width / n_head;
  const int n = span.rows;
  const int start = span.start;
  const float* qkv = qkv_.data() + static_cast<size_t>(span.first_row) * 3 * width;
  float* out = attended_.data() + static_cast<size_t>(span.first_row) * width;
  // Only the filled prefix [0, start] is read, unless the ablation reads the whole capacity with a
  // causal mask (the scores past the prefix are computed, then masked away).
  const int end = attend_full_self_cache_ ? self.capacity() : start + 1;
  const int shared = n > 1 ? self.shared_length() : 0;  // one row reads row 0's positions in one go
  auto row_query = [&](int r) { return qkv + static_cast<size_t>(r) * 3 * width; };
  if (shared == 0) {
    for (int r = 0; r < n; ++r)
      attention({row_query(r), 3 * width, 1, self.keys(index, r), d_head, self.values(index, r), d_head, end, n_head, d_head,
                 /*causal_offset=*/start, self.head_stride(), self.head_stride()},
                out + static_cast<size_t>(r) * width, width, scratch_);
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
  attention_over_shared_prompt({qkv, 3 * width, n, self.keys(index, 0), self.values(index, 0), shared, own_keys_.data(),
                                own_values_.data(), end - shared, d_head, n_head, d_head,
                                /*own_causal_offset=*/start - shared, self.head_stride()},
                               out, width, scratch_);
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
    std::memcpy(gathered_.data() + i * width, normed_.data() + static_cast<size_t>(rows[i]) * width, sizeof(float) * width);
  logits.resize(rows.size() * model_.dims.n_vocab);
  model_.token_embedding.forward(gathered_.data(), static_cast<int>(rows.size()), logits.data());
}

// The ops of layer_sequence.h over this decoder's buffers, for one pass's groups: every projection
// multiplies the rows of all groups at once (Linear counts them and adds its bias); attention runs
// per group, over that group's caches.
struct Decoder::PassOps {
  Decoder& d;
  std::vector<DecoderGroup>& groups;
  int n;  // rows in the pass

  float* buffer(LayerBuffer b) const {
    switch (b) {
      case LayerBuffer::kNormed: return d.normed_.data();
      case LayerBuffer::kQkv: return d.qkv_.data();
      case LayerBuffer::kAttended: return d.attended_.data();
      case LayerBuffer::kProjected: return d.projected_.data();
      case LayerBuffer::kHidden: return d.hidden_.data();
    }
    return nullptr;
  }
  int width() const { return d.model_.dims.n_text_state; }
  void embed() {
    for (size_t g = 0; g < groups.size(); ++g) d.embed(groups[g], d.spans_[g]);
  }
  void norm(const LayerNormWeights& ln) {
    layer_norm(d.x_.data(), n, width(), ln.gamma.data(), ln.beta.data(), d.normed_.data());
  }
  void project(LayerBuffer from, const Linear& l, LayerBuffer to) { l.forward(buffer(from), n, buffer(to)); }
  void project_gelu(LayerBuffer from, const Linear& l, LayerBuffer to) { l.forward_gelu(buffer(from), n, buffer(to)); }
  void self_attention(int layer, const Linear&) {
    for (size_t g = 0; g < groups.size(); ++g) d.self_attention(layer, groups[g], d.spans_[g]);
  }
  void cross_attention(int layer, const Linear&) {
    if (d.capture_heads_) d.capture_cross_scores(layer, n, *groups[0].cross);
    for (size_t g = 0; g < groups.size(); ++g) d.cross_attention(layer, *groups[g].cross, d.spans_[g]);
  }
  void add_and_norm(const Linear&, const LayerNormWeights& ln) {
    add_inplace(d.x_.data(), d.projected_.data(), static_cast<long>(n) * width());
    norm(ln);
  }
  void logits() {}  // forward() hands each group its rows
};

void Decoder::forward(std::vector<DecoderGroup>& groups) {
  const int width = model_.dims.n_text_state;
  const int n_vocab = model_.dims.n_vocab;
  spans_.clear();
  int n = 0;
  for (DecoderGroup& g : groups) {
    const int rows = static_cast<int>(g.tokens.size());
    if (rows == 0) throw Error("a decoder pass needs at least one token per window");
    if (g.prefill) {
      g.self->set_length(0);
      for (int p : g.logit_positions)
        if (p < 0 || p >= rows) throw Error("prefill logits requested for a position outside the prompt");
    } else if (rows > g.self->max_rows()) {
      throw Error("decode step has more rows than the cache was sized for");
    }
    spans_.push_back({n, rows, g.self->length()});
    n += rows;
  }
  const size_t size = static_cast<size_t>(n) * width;
  x_.resize(size);
  normed_.resize(size);
  qkv_.resize(size * 3);
  attended_.resize(size);
  projected_.resize(size);
  hidden_.resize(size * 4);
  PassOps ops{*this, groups, n};
  decoder_pass(ops, model_.decoder_blocks, model_.decoder_ln);

  // One vocabulary projection for every group's logit rows.
  logit_rows_.clear();
  for (size_t g = 0; g < groups.size(); ++g) {
    DecoderGroup& group = groups[g];
    const Span& span = spans_[g];
    group.self->set_length(span.start + (group.prefill ? span.rows : 1));
    if (group.prefill) {
      for (int p : group.logit_positions) logit_rows_.push_back(span.first_row + p);
    } else {
      for (int r = 0; r < span.rows; ++r) logit_rows_.push_back(span.first_row + r);
    }
  }
  if (groups.size() == 1) return project_logits(logit_rows_, *groups[0].logits);
  project_logits(logit_rows_, all_logits_);
  // Each row's logits to its group, row by row over the threads: 35 rows of a batched step are 7 MB,
  // which one thread copied while the others waited.
  row_destinations_.clear();
  for (size_t g = 0; g < groups.size(); ++g) {
    const size_t count = groups[g].prefill ? groups[g].logit_positions.size() : static_cast<size_t>(spans_[g].rows);
    groups[g].logits->resize(count * n_vocab);
    for (size_t r = 0; r < count; ++r) row_destinations_.push_back(groups[g].logits->data() + r * n_vocab);
  }
  const long rows = static_cast<long>(row_destinations_.size());
#pragma omp parallel for schedule(static)
  for (long r = 0; r < rows; ++r)
    std::memcpy(row_destinations_[r], all_logits_.data() + static_cast<size_t>(r) * n_vocab, sizeof(float) * n_vocab);
}

void Decoder::prefill(const std::vector<int>& tokens, const CrossKVCache& cross, SelfKVCache& self,
                      const std::vector<int>& logit_positions, std::vector<float>& logits) {
  if (tokens.empty()) throw Error("decoder prefill needs at least one token");
  std::vector<DecoderGroup> one{{&cross, &self, /*prefill=*/true, tokens, logit_positions, &logits}};
  forward(one);
}

void Decoder::step(const std::vector<int>& tokens, const CrossKVCache& cross, SelfKVCache& self,
                   std::vector<float>& logits) {
  std::vector<DecoderGroup> one{{&cross, &self, /*prefill=*/false, tokens, {}, &logits}};
  forward(one);
}

}  // namespace auris
