// CudaWindowEngine (cuda_window_engine.h): its buffers, each slot's window and caches, and the
// passes, each step a replay of its bucket's captured graph.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "auris/error.h"
#include "decoding/step_proposals.h"
#include "decoding/step_rules.h"
#include "whisper/cuda/cuda_pass_ops.h"
#include "whisper/cuda/cuda_window_engine.h"
#include "whisper/cuda/step_tail_rules.h"
#include "whisper/inference_calls.h"
#include "whisper/layer_sequence.h"

namespace auris::cuda {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void keep_device_time(std::vector<float>& times, const cuda::EventTimer& timer) {
  if (times.size() < EngineCounters::kDeviceTimesKept) times.push_back(timer.elapsed_ms());
}

int bucket_of(int rows) {
  int b = 1;
  while (b < rows) b *= 2;
  return b;
}

}  // namespace

template <typename T>
void CudaWindowEngine<T>::encode_slot(int slot, const LogMel& window) {
  const int ctx = d_.n_audio_ctx, width = d_.n_audio_state, frames = 2 * ctx, mels = d_.n_mels;
  has_window_[slot] = 0;  // until this window is encoded
  if (window.n_mels != mels || window.n_frames != frames)
    throw Error("encoder expects a log-mel window of " + std::to_string(mels) + " x " + std::to_string(frames) +
                ", got " + std::to_string(window.n_mels) + " x " + std::to_string(window.n_frames));
  const auto start = std::chrono::steady_clock::now();
  cudaStream_t s = stream();
  timer_.start(s);
  mel_.upload(window.data, s);
  // conv1 over [n_mels x 3000] (channel-major), conv2 (stride 2) over conv1's [3000 x d] output.
  cuda::im2col_k3<T>(mel_.data(), mels, frames, frames, 1, 1, frames, columns_.data(), s);
  // Each convolution's bias and GELU in the pass that converts its output to fp32 (the second's
  // adding the positions).
  linear(columns_.data(), frames, w_.conv1, projected_.data());
  cuda::bias_gelu_to_float<T>(projected_.data(), w_.conv1.bias_or_null(), nullptr, frames, width, x_float_.data(), s);
  cuda::im2col_k3<T>(x_float_.data(), width, frames, 1, width, 2, ctx, columns_.data(), s);
  linear(columns_.data(), ctx, w_.conv2, projected_.data());
  cuda::bias_gelu_to_float<T>(projected_.data(), w_.conv2.bias_or_null(), w_.audio_positions.data(), ctx, width, x_.data(), s);
  PassOps ops{*this, PassOps::Pass::kEncoder, ctx};
  encoder_blocks(ops, w_.encoder_blocks, w_.encoder_ln_post);
  AURIS_CUDA_CHECK(cudaMemcpyAsync(encoder_out_.data(), normed_.data(), static_cast<size_t>(ctx) * width * sizeof(T),
                                   cudaMemcpyDeviceToDevice, s));
  timer_.stop(s);
  wait_for_device();
  counters_.encoder_seconds += seconds_since(start);
  keep_device_time(counters_.encoder_device_ms, timer_);
  ++counters_.encoder_windows;
  compute_cross_kv(slot);
  has_window_[slot] = 1;
  reset(slot);
}

// One projection of the encoder output for every decoder layer's K and V, regrouped head-major into
// the slot's part of cross_.
template <typename T>
void CudaWindowEngine<T>::compute_cross_kv(int slot) {
  const auto start = std::chrono::steady_clock::now();
  const int ctx = d_.n_audio_ctx, kv_width = w_.cross_kv_all_layers.out;
  linear(encoder_out_.data(), ctx, w_.cross_kv_all_layers, kv_projected_.data());
  cuda::add_bias<T>(kv_projected_.data(), w_.cross_kv_all_layers.bias_or_null(), ctx, kv_width, kv_width, stream());
  cuda::regroup_heads<T>(kv_projected_.data(), ctx, kv_width / kHead, cross_.data() + slot * window_stride(), stream());
  wait_for_device();
  counters_.cross_kv_seconds += seconds_since(start);
}

template <typename T>
void CudaWindowEngine<T>::ensure_rows(int rows) {
  if (rows > kMaxBucket)
    throw Error("--device cuda decodes at most " + std::to_string(kMaxBucket) + " sequences of a window at once (beam size x best of)");
  // Exactly `rows`: a step's padding rows have a cache row of their own (padding_row()).
  const int needed = rows;
  if (needed <= rows_per_slot_) return;
  const int old_rows_per_slot = rows_per_slot_;
  const size_t old_layer_size = old_rows_per_slot ? self_cache_layer_size() : 0;
  rows_per_slot_ = needed;
  const size_t size = static_cast<size_t>(d_.n_text_layer) * self_cache_layer_size();
  DeviceBuffer<T> keys(size), values(size);
  AURIS_CUDA_CHECK(cudaMemsetAsync(keys.data(), 0, size * sizeof(T), stream()));
  AURIS_CUDA_CHECK(cudaMemsetAsync(values.data(), 0, size * sizeof(T), stream()));
  // Other slots may be mid-decode: their rows move to the wider layout.
  if (old_rows_per_slot) {
    const size_t slot_bytes = old_rows_per_slot * cache_row_size() * sizeof(T);
    for (int l = 0; l < d_.n_text_layer; ++l)
      for (int slot = 0; slot < slots_; ++slot) {
        const size_t from = l * old_layer_size + slot * old_rows_per_slot * cache_row_size();
        const size_t to = l * self_cache_layer_size() + slot * rows_per_slot_ * cache_row_size();
        AURIS_CUDA_CHECK(cudaMemcpyAsync(keys.data() + to, self_k_.data() + from, slot_bytes, cudaMemcpyDeviceToDevice, stream()));
        AURIS_CUDA_CHECK(cudaMemcpyAsync(values.data() + to, self_v_.data() + from, slot_bytes, cudaMemcpyDeviceToDevice, stream()));
      }
  }
  wait_for_device();  // the old buffers are freed next
  self_k_ = std::move(keys);
  self_v_ = std::move(values);
  reorder_scratch_ = DeviceBuffer<T>(rows_per_slot_ * cache_row_size());
  source_rows_.resize(kMaxBucket);
  graphs_.clear();  // they point at the old cache
}

template <typename T>
void CudaWindowEngine<T>::prefill_call_of(int slot, const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out,
                                          const std::vector<int>& extra_positions, std::vector<float>* extra_logits_out) {
  const PrefillCall call = prefill_call(tokens, extra_positions, extra_logits_out);
  ensure_rows(call.rows);
  std::vector<float> prefill_logits;
  prefill(slot, call.prompt, call.logit_positions, prefill_logits);
  copy_rows(slot, std::vector<int>(call.rows, 0));  // every row continues from the one prefilled prompt
  prefilled_rows_[slot] = call.rows;
  replicate_prefill_logits(call, prefill_logits, d_.n_vocab, logits_out, extra_logits_out);
}

template <typename T>
void CudaWindowEngine<T>::logits(const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out,
                                 const std::vector<int>& extra_positions, std::vector<float>* extra_logits_out) {
  if (!has_window_[0]) throw Error("decoder has no audio window: call set_window() first");
  if (lengths_[0] == 0) return prefill_call_of(0, tokens, logits_out, extra_positions, extra_logits_out);
  if (static_cast<int>(tokens.size()) > prefilled_rows_[0]) throw Error("more sequences than were prefilled");
  cuda::pack_no_tail(host_inputs_.data()->tail);
  step({{0, step_tokens(tokens, lengths_[0])}}, &logits_out);
}

template <typename T>
bool CudaWindowEngine<T>::propose(const std::vector<std::vector<int>>& tokens, const StepRules& rules, Selection selection,
                                  int k, StepProposals& out) {
  // The prefill's logits, and rules, choices or rows the tail's arrays cannot hold, go through the host.
  if (!has_window_[0] || lengths_[0] == 0 || ablations_.host_step_tail) return false;
  if (static_cast<int>(tokens.size()) > prefilled_rows_[0]) throw Error("more sequences than were prefilled");
  if (rules.row_masks.size() != tokens.size()) throw Error("the step's rules are for another number of rows");
  if (!cuda::pack_step_tail({&rules}, selection, k, host_inputs_.data()->tail)) return false;
  step({{0, step_tokens(tokens, lengths_[0])}}, nullptr);
  const size_t n = tokens.size() * k;  // [rows x k], as the tail wrote them
  out.k = k;
  out.tokens.assign(host_tail_tokens_.data(), host_tail_tokens_.data() + n);
  out.logprobs.assign(host_tail_logprobs_.data(), host_tail_logprobs_.data() + n);
  ++counters_.device_step_tails;
  return true;
}

template <typename T>
void CudaWindowEngine<T>::encode(std::vector<Encode>& windows) {
  for (Encode& w : windows) {
    try {
      encode_slot(w.slot, *w.window);
    } catch (...) {
      w.error = std::current_exception();
    }
  }
}

// Prefills one slot at a time (each a prompt of its own, through cuBLAS), then every stepping
// slot's rows in one step (in chunks of kMaxBucket rows where they are more). The proposing slots'
// filters and choice run in the step's tail where they choose alike and their rules fit its arrays;
// otherwise their rows' logits come back and the host filters and chooses, as the tail would.
template <typename T>
void CudaWindowEngine<T>::decode(std::vector<Decode>& calls) {
  std::vector<StepPart> parts;
  std::vector<Decode*> stepping;
  for (Decode& call : calls) {
    try {
      if (!has_window_[call.slot]) throw Error("decoder has no audio window: call set_window() first");
      apply_pending_reorder(call.slot);
      const int length = lengths_[call.slot];
      if (call.rules && length == 0) continue;  // the prefill's logits go through the host: unproposed
      if (length == 0) {
        prefill_call_of(call.slot, *call.rows, *call.logits, *call.extra_positions, call.extra_logits);
        continue;
      }
      if (static_cast<int>(call.rows->size()) > prefilled_rows_[call.slot]) throw Error("more sequences than were prefilled");
      if (call.rules && call.rules->row_masks.size() != call.rows->size())
        throw Error("the step's rules are for another number of rows");
      if (length >= d_.n_text_ctx)
        throw Error("decoder context is full: Whisper decodes at most " + std::to_string(d_.n_text_ctx) + " tokens");
      std::vector<int> next = step_tokens(*call.rows, length);
      for (int t : next)
        if (t < 0 || t >= d_.n_vocab) throw Error("token id " + std::to_string(t) + " is outside the vocabulary");
      parts.push_back({call.slot, std::move(next)});
      stepping.push_back(&call);
    } catch (...) {
      call.error = std::current_exception();
    }
  }
  for (size_t first = 0; first < parts.size();) {
    // A slot holds at most kMaxBucket rows (ensure_rows), so every chunk takes at least one part.
    size_t end = first, rows = 0;
    while (end < parts.size() && (end == first || rows + parts[end].tokens.size() <= static_cast<size_t>(kMaxBucket)))
      rows += parts[end++].tokens.size();
    const std::vector<StepPart> chunk(parts.begin() + first, parts.begin() + end);
    const std::vector<Decode*> members(stepping.begin() + first, stepping.begin() + end);
    first = end;
    const bool tail = pack_chunk_tail(chunk, members);
    bool wants_logits = false;
    for (const Decode* m : members) wants_logits = wants_logits || !m->rules || !tail;
    try {
      std::vector<float> logits;
      step(chunk, wants_logits ? &logits : nullptr);
      if (tail) ++counters_.device_step_tails;
      const size_t n_vocab = static_cast<size_t>(d_.n_vocab);
      size_t row = 0;
      for (size_t i = 0; i < chunk.size(); ++i) {
        Decode& m = *members[i];
        const size_t n = chunk[i].tokens.size();
        if (m.rules && tail) {
          const size_t k = static_cast<size_t>(m.k);
          m.proposals->k = m.k;
          m.proposals->tokens.assign(host_tail_tokens_.data() + row * k, host_tail_tokens_.data() + (row + n) * k);
          m.proposals->logprobs.assign(host_tail_logprobs_.data() + row * k, host_tail_logprobs_.data() + (row + n) * k);
        } else if (m.rules) {
          std::vector<float> own(logits.begin() + row * n_vocab, logits.begin() + (row + n) * n_vocab);
          apply_step_rules(*m.rules, own, d_.n_vocab);
          propose_on_host(own, static_cast<int>(n), d_.n_vocab, m.selection, m.k, *m.proposals);
        } else {
          m.logits->assign(logits.begin() + row * n_vocab, logits.begin() + (row + n) * n_vocab);
        }
        m.proposed = m.rules != nullptr;
        row += n;
      }
    } catch (...) {
      for (Decode* m : members) m->error = std::current_exception();
    }
  }
}

// The step's tail inputs for a chunk: the proposing parts' rules packed (the other parts' rows take
// the first proposing part's shared masks, their proposals unread) when every proposing part chooses
// alike and they fit; else none. Returns whether the step's tail chooses for the proposing parts.
template <typename T>
bool CudaWindowEngine<T>::pack_chunk_tail(const std::vector<StepPart>& chunk, const std::vector<Decode*>& members) {
  const Decode* proposing = nullptr;
  bool alike = true;
  for (const Decode* m : members) {
    if (!m->rules) continue;
    if (!proposing) proposing = m;
    alike = alike && m->selection == proposing->selection && m->k == proposing->k;
  }
  cuda::StepTailInputs& tail = host_inputs_.data()->tail;
  cuda::pack_no_tail(tail);
  if (!proposing || !alike) return false;
  std::vector<StepRules> unread(members.size());  // the rules of the parts that want logits
  std::vector<const StepRules*> rules;
  for (size_t i = 0; i < members.size(); ++i) {
    if (members[i]->rules) {
      rules.push_back(members[i]->rules);
      continue;
    }
    unread[i].masked_tokens = proposing->rules->masked_tokens;
    unread[i].row_masks.resize(chunk[i].tokens.size());
    unread[i].timestamp_begin = proposing->rules->timestamp_begin;
    rules.push_back(&unread[i]);
  }
  return cuda::pack_step_tail(rules, proposing->selection, proposing->k, tail);
}

template <typename T>
void CudaWindowEngine<T>::align(int slot, const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                                const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
                                std::vector<float>& cross_scores) {
  if (!has_window_[slot]) throw Error("decoder has no audio window: call set_window() first");
  if (tokens.empty()) throw Error("alignment needs at least one token");
  for (const auto& [layer, head] : heads)
    if (layer < 0 || layer >= d_.n_text_layer || head < 0 || head >= d_.n_text_head)
      throw Error("alignment head (" + std::to_string(layer) + ", " + std::to_string(head) + ") is not in the model");
  for (int p : logit_positions)
    if (p < 0 || p >= static_cast<int>(tokens.size())) throw Error("prefill logits requested for a position outside the prompt");
  pending_reorders_[slot].clear();  // the pass starts the cache over
  ensure_rows(1);
  cross_scores.assign(heads.size() * tokens.size() * d_.n_audio_ctx, 0.0f);
  prefill(slot, tokens, logit_positions, logits, &heads, &cross_scores);
  const float scale = 1.0f / std::sqrt(static_cast<float>(kHead));
  for (float& v : cross_scores) v *= scale;
  lengths_[slot] = 0;  // the pass is not a decode: the next logits() call starts a fresh prefill
}

template <typename T>
void CudaWindowEngine<T>::prefill(int slot, const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                                  std::vector<float>& logits, const std::vector<std::pair<int, int>>* capture_heads,
                                  std::vector<float>* capture_out) {
  const int n = static_cast<int>(tokens.size());
  if (n > d_.n_text_ctx) throw Error("decoder context is full: Whisper decodes at most " + std::to_string(d_.n_text_ctx) + " tokens");
  for (int t : tokens)
    if (t < 0 || t >= d_.n_vocab) throw Error("token id " + std::to_string(t) + " is outside the vocabulary");
  const auto start = std::chrono::steady_clock::now();
  cudaStream_t s = stream();
  // The prompt's tokens and positions 0..n-1, all in the slot's first cache row.
  std::vector<int> staged(3 * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) staged[i] = tokens[i], staged[n + i] = i, staged[2 * n + i] = slot * rows_per_slot_;
  DeviceBuffer<int> prompt(staged.size());
  timer_.start(s);
  prompt.upload(staged, s);
  PassOps ops{*this, PassOps::Pass::kPrefill, n, slot, prompt.data(), &logit_positions, &logits, capture_heads, capture_out};
  decoder_pass(ops, w_.decoder_blocks, w_.decoder_ln);
  timer_.stop(s);
  wait_for_device();
  lengths_[slot] = n;
  ++counters_.prefills;
  counters_.prefill_seconds += seconds_since(start);
  keep_device_time(counters_.prefill_device_ms, timer_);
}

template <typename T>
std::unique_ptr<Graph> CudaWindowEngine<T>::capture_step(int bucket) {
  auto graph = std::make_unique<Graph>();
  const cuda::ProgrammaticLaunch overlapped(ablations_.programmatic_launch);  // recorded in the graph
  graph->begin(stream());
  tally_ = &graph->rows_per_launch;
  try {
    PassOps ops{*this, PassOps::Pass::kStep, bucket};
    decoder_pass(ops, w_.decoder_blocks, w_.decoder_ln);
  } catch (...) {
    tally_ = &rows_multiplied_;
    graph->abandon(stream());
    throw;
  }
  tally_ = &rows_multiplied_;
  graph->end(stream());
  return graph;
}

template <typename T>
void CudaWindowEngine<T>::step(const std::vector<StepPart>& parts, std::vector<float>* logits) {
  int rows = 0;
  for (const StepPart& p : parts) rows += static_cast<int>(p.tokens.size());
  const int bucket = bucket_of(rows);
  for (const StepPart& p : parts) {
    if (lengths_[p.slot] >= d_.n_text_ctx)
      throw Error("decoder context is full: Whisper decodes at most " + std::to_string(d_.n_text_ctx) + " tokens");
    for (int t : p.tokens)
      if (t < 0 || t >= d_.n_vocab) throw Error("token id " + std::to_string(t) + " is outside the vocabulary");
  }
  const auto start = std::chrono::steady_clock::now();
  const long long waits_before = host_waits_;
  timer_.start(stream());
  if (ablations_.recompute_cross_kv_each_step) compute_cross_kv(0);  // the sequential engine's ablation: one slot
  // Each row at its slot's length, in its slot's cache rows, over its slot's window; padding rows
  // repeat the first row's token at position 0 in the padding row, which nothing else reads.
  StepInputs& in = *host_inputs_.data();
  int r = 0;
  for (const StepPart& p : parts) {
    const int length = lengths_[p.slot];
    for (size_t i = 0; i < p.tokens.size(); ++i, ++r) {
      in.tokens[r] = p.tokens[i];
      in.positions[r] = length;
      in.rows[r] = p.slot * rows_per_slot_ + static_cast<int>(i);
      in.n_kv[r] = ablations_.attend_full_self_cache ? d_.n_text_ctx : length + 1;
      in.n_visible[r] = length + 1;
      in.windows[r] = p.slot;
    }
  }
  for (; r < bucket; ++r) {
    in.tokens[r] = in.tokens[0];
    in.positions[r] = 0;
    in.rows[r] = padding_row();
    in.n_kv[r] = in.n_visible[r] = 1;
    in.windows[r] = in.windows[0];
  }
  for (r = 0; r < bucket; ++r) in.n_ctx[r] = d_.n_audio_ctx;
  AURIS_CUDA_CHECK(cudaMemcpyAsync(inputs_.data(), &in, sizeof(StepInputs), cudaMemcpyHostToDevice, stream()));
  std::unique_ptr<Graph>& graph = graphs_[bucket];
  if (!graph) graph = capture_step(bucket);
  graph->launch(stream());
  for (const auto& [layer, rows_per_launch] : graph->rows_per_launch) rows_multiplied_[layer] += rows_per_launch;
  const size_t n_logits = static_cast<size_t>(rows) * d_.n_vocab;
  if (logits)
    AURIS_CUDA_CHECK(cudaMemcpyAsync(host_logits_.data(), logits_.data(), n_logits * sizeof(float), cudaMemcpyDeviceToHost,
                                     stream()));
  timer_.stop(stream());
  wait_for_device();
  if (logits) logits->assign(host_logits_.data(), host_logits_.data() + n_logits);
  for (const StepPart& p : parts) ++lengths_[p.slot];
  ++counters_.decode_steps;
  counters_.decode_rows += rows;
  counters_.decode_seconds += seconds_since(start);
  counters_.step_host_waits += host_waits_ - waits_before;
  keep_device_time(counters_.step_device_ms, timer_);
}

template <typename T>
EngineCounters CudaWindowEngine<T>::counters() const {
  EngineCounters c = counters_;
  auto rows_of = [&](const void* layer) {
    const auto it = rows_multiplied_.find(layer);
    return it == rows_multiplied_.end() ? 0LL : it->second;
  };
  c.cross_kv_rows = rows_of(&w_.cross_kv_all_layers);
  for (const auto& b : w_.decoder_blocks) {
    c.self_qkv_rows += rows_of(&b.qkv);
    c.cross_query_rows += rows_of(&b.cross_query);
  }
  return c;
}

template <typename T>
void CudaWindowEngine<T>::check_reorder(int slot, const std::vector<int>& source_rows) const {
  const int rows = prefilled_rows_[slot];
  if (static_cast<int>(source_rows.size()) > rows) throw Error("beam reorder names more rows than were prefilled");
  for (int r : source_rows)
    if (r < 0 || r >= rows) throw Error("beam reorder names a row out of range");
}

template <typename T>
void CudaWindowEngine<T>::rearrange_kv_cache(const std::vector<int>& source_rows) {
  check_reorder(0, source_rows);
  pending_reorders_[0] = source_rows;
  const long long waits_before = host_waits_;
  apply_pending_reorder(0);
  counters_.step_host_waits += host_waits_ - waits_before;
}

template <typename T>
void CudaWindowEngine<T>::apply_pending_reorder(int slot) {
  std::vector<int> source_rows;
  source_rows.swap(pending_reorders_[slot]);
  bool identity = true;
  for (size_t i = 0; i < source_rows.size(); ++i) identity = identity && source_rows[i] == static_cast<int>(i);
  if (!identity && lengths_[slot] > 0) copy_rows(slot, source_rows);
}

template <typename T>
void CudaWindowEngine<T>::copy_rows(int slot, const std::vector<int>& source_rows) {
  const int rows = static_cast<int>(source_rows.size()), first = slot * rows_per_slot_;
  cudaStream_t s = stream();
  std::vector<int> absolute(source_rows);
  for (int& r : absolute) r += first;
  source_rows_.upload(absolute, s);
  const size_t row_bytes = cache_row_size() * sizeof(T);
  for (int l = 0; l < d_.n_text_layer; ++l)
    for (T* cache : {self_keys(l), self_values(l)}) {
      cuda::gather_cache_rows<T>(cache, reorder_scratch_.data(), source_rows_.data(), rows, lengths_[slot], d_.n_text_ctx,
                                 d_.n_text_state, s);
      AURIS_CUDA_CHECK(cudaMemcpyAsync(cache + first * cache_row_size(), reorder_scratch_.data(), rows * row_bytes,
                                       cudaMemcpyDeviceToDevice, s));
    }
  // No wait: the next pass runs after the copies on the same stream, and source_rows went to a
  // staging buffer before upload() returned.
}


namespace {

template <template <typename> class Make>
auto for_compute_type(std::shared_ptr<const CudaWeights> weights, int slots) {
  switch (weights->compute_type) {
    case ComputeType::kFloat32: return Make<float>::make(std::move(weights), slots);
    case ComputeType::kFloat16: return Make<__half>::make(std::move(weights), slots);
    case ComputeType::kBfloat16: return Make<__nv_bfloat16>::make(std::move(weights), slots);
    case ComputeType::kInt8:
    case ComputeType::kInt8Bfloat16: break;
  }
  throw Error("compute types int8 and int8_bfloat16 run on the CPU only: on CUDA use float16, bfloat16 or float32");
}
template <typename T>
struct MakeEngine {
  static std::unique_ptr<WindowEngine> make(std::shared_ptr<const CudaWeights> w, int slots) {
    return std::make_unique<CudaWindowEngine<T>>(std::move(w), slots);
  }
};
template <typename T>
struct MakePasses {
  static std::unique_ptr<BatchPasses> make(std::shared_ptr<const CudaWeights> w, int slots) {
    return std::make_unique<CudaWindowEngine<T>>(std::move(w), slots);
  }
};

}  // namespace

std::unique_ptr<WindowEngine> make_window_engine(std::shared_ptr<const CudaWeights> weights) {
  return for_compute_type<MakeEngine>(std::move(weights), 1);
}

std::unique_ptr<BatchPasses> make_batch_passes(std::shared_ptr<const CudaWeights> weights, int slots) {
  if (slots < 1) throw Error("a batch needs at least one window, got " + std::to_string(slots));
  return for_compute_type<MakePasses>(std::move(weights), slots);
}

}  // namespace auris::cuda
