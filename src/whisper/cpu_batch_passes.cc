#include "whisper/cpu_batch_passes.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "auris/error.h"
#include "whisper/inference_calls.h"

namespace auris {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Windows per encoder pass. On the CPU the encoder's products are already large for one window (1500
// rows), and more windows per pass only make its activations outgrow the caches: base's encoder took
// 2.87 s for 8 windows at 1 a pass, 2.91 s at 2 and 2.99 s at 4, 3.57 s at 8 (auris_batch_scaling).
// Each window more also holds its activations (about 50 MB with base) for the whole run.
constexpr size_t kEncoderWindowsPerPass = 1;

// What Decoder::forward would refuse for one window, found before the pass that carries every
// window, so that one window's bad tokens fail that window alone.
void check_tokens(const std::vector<int>& tokens, int first_position, int last_position, const ModelDims& d) {
  for (int t : tokens)
    if (t < 0 || t >= d.n_vocab)
      throw Error("token id " + std::to_string(t) + " is outside the vocabulary (0.." + std::to_string(d.n_vocab - 1) + ")");
  if (first_position < 0 || last_position >= d.n_text_ctx)
    throw Error("decoder context is full: Whisper decodes at most " + std::to_string(d.n_text_ctx) + " tokens");
}

}  // namespace

CpuBatchPasses::CpuBatchPasses(const WhisperModel& model, int slots)
    : model_(model), encoder_(model), decoder_(model) {
  if (slots < 1) throw Error("a batch needs at least one window, got " + std::to_string(slots));
  slots_.resize(slots);
}

void CpuBatchPasses::ensure_rows(Slot& slot, int rows) {
  if (slot.self && slot.self->max_rows() >= rows) return;
  const ModelDims& d = model_.dims;
  slot.self = std::make_unique<SelfKVCache>(d.n_text_layer, rows, d.n_text_ctx, d.n_text_head, d.n_text_state / d.n_text_head);
}

EngineCounters CpuBatchPasses::counters() const {
  std::lock_guard lock(counters_mutex_);
  EngineCounters c = counters_;
  c.cross_kv_rows = model_.cross_kv_all_layers.rows_multiplied();
  for (const DecoderBlock& b : model_.decoder_blocks) {
    c.cross_query_rows += b.cross_query.rows_multiplied();
    c.self_qkv_rows += b.qkv.rows_multiplied();
  }
  return c;
}

void CpuBatchPasses::encode(std::vector<Encode>& windows) {
  const ModelDims& d = model_.dims;
  for (size_t first = 0; first < windows.size(); first += kEncoderWindowsPerPass) {
    const size_t end = std::min(windows.size(), first + kEncoderWindowsPerPass);
    std::vector<const LogMel*> inputs;
    std::vector<std::vector<float>*> outs;
    std::vector<Encode*> accepted;
    encoder_outputs_.resize(kEncoderWindowsPerPass);
    for (size_t i = first; i < end; ++i) {
      Encode& w = windows[i];
      slots_[w.slot].has_window = false;  // until this pass gives it one
      if (w.window->n_mels != d.n_mels || w.window->n_frames != 2 * d.n_audio_ctx) {
        try {
          std::vector<float> refused;
          encoder_.forward(*w.window, refused);  // throws the encoder's own message
        } catch (...) {
          w.error = std::current_exception();
        }
        continue;
      }
      inputs.push_back(w.window);
      outs.push_back(&encoder_outputs_[accepted.size()]);
      accepted.push_back(&w);
    }
    if (accepted.empty()) continue;
    try {
      auto start = std::chrono::steady_clock::now();
      encoder_.forward(inputs, outs);
      const double encoder_seconds = seconds_since(start);
      start = std::chrono::steady_clock::now();
      for (size_t i = 0; i < accepted.size(); ++i) {
        Slot& s = slots_[accepted[i]->slot];
        s.cross.compute(model_, encoder_outputs_[i].data(), cross_projection_);
        s.has_window = true;
        // Each of the batch's slots holds a cache: kept at what this window writes, not at the most
        // any earlier window wrote, the batch's memory stays near batch 1's plus its windows' own.
        if (s.self) s.self->release_memory();
      }
      std::lock_guard lock(counters_mutex_);
      counters_.encoder_windows += static_cast<long long>(accepted.size());
      counters_.encoder_seconds += encoder_seconds;
      counters_.cross_kv_seconds += seconds_since(start);
    } catch (...) {
      for (Encode* w : accepted) w->error = std::current_exception();
    }
  }
}

void CpuBatchPasses::decode(std::vector<Decode>& calls) {
  const ModelDims& d = model_.dims;
  std::vector<DecoderGroup> groups;
  std::vector<Decode*> members;
  std::vector<PrefillCall> prefills;  // one per member that prefills, in member order
  long long rows = 0;
  bool any_prefill = false, any_step = false;
  for (Decode& call : calls) {
    if (call.rules) continue;  // no propose calls (proposes() is false): left unproposed
    Slot& s = slots_[call.slot];
    try {
      if (!s.self || s.self->length() == 0) {
        PrefillCall prefill = prefill_call(*call.rows, *call.extra_positions, call.extra_logits);
        check_tokens(prefill.prompt, 0, static_cast<int>(prefill.prompt.size()) - 1, d);
        ensure_rows(s, prefill.rows);
        groups.push_back({&s.cross, s.self.get(), /*prefill=*/true, prefill.prompt, prefill.logit_positions, &s.prefill_logits});
        prefills.push_back(std::move(prefill));
        any_prefill = true;
      } else {
        if (static_cast<int>(call.rows->size()) > s.self->max_rows()) throw Error("more sequences than were prefilled");
        std::vector<int> next = step_tokens(*call.rows, s.self->length());
        check_tokens(next, s.self->length(), s.self->length(), d);
        rows += static_cast<long long>(next.size());
        groups.push_back({&s.cross, s.self.get(), /*prefill=*/false, std::move(next), {}, call.logits});
        any_step = true;
      }
      members.push_back(&call);
    } catch (...) {
      call.error = std::current_exception();
    }
  }
  if (groups.empty()) return;
  const auto start = std::chrono::steady_clock::now();
  try {
    decoder_.forward(groups);
  } catch (...) {
    for (Decode* call : members) call->error = std::current_exception();
    return;
  }
  const double seconds = seconds_since(start);
  size_t prefill = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (!groups[g].prefill) continue;
    Decode& call = *members[g];
    Slot& s = slots_[call.slot];
    s.self->share_prefix();
    replicate_prefill_logits(prefills[prefill++], s.prefill_logits, d.n_vocab, *call.logits, call.extra_logits);
  }
  std::lock_guard lock(counters_mutex_);
  // A pass that carries prefills and steps counts as a step: the steps' rows waited for it.
  if (any_step) {
    ++counters_.decode_steps;
    counters_.decode_rows += rows;
    counters_.decode_seconds += seconds;
  } else if (any_prefill) {
    counters_.prefill_seconds += seconds;
  }
  counters_.prefills += static_cast<long long>(prefills.size());
}

void CpuBatchPasses::align(int slot, const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                           const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
                           std::vector<float>& cross_scores) {
  Slot& s = slots_[slot];
  ensure_rows(s, 1);
  decoder_.prefill_capturing_cross_attention(tokens, s.cross, *s.self, logit_positions, logits, heads, cross_scores);
  s.self->set_length(0);  // the pass is not a decode: the next logits() call starts a fresh prefill
}

// The slot's own caches: no other slot is touched.
void CpuBatchPasses::rearrange(int slot, const std::vector<int>& source_rows) {
  if (slots_[slot].self) slots_[slot].self->reorder(source_rows);
}

void CpuBatchPasses::reset(int slot) {
  if (slots_[slot].self) slots_[slot].self->set_length(0);
}

}  // namespace auris
