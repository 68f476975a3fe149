#include "batch/window_batch.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "auris/error.h"
#include "util/thread_count.h"
#include "whisper/inference_calls.h"
#include "whisper/kv_cache.h"

namespace auris {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Windows per encoder pass. On the CPU the encoder's products are already large for one window (1500
// rows), and more windows per pass only make its activations outgrow the caches: base's encoder took
// 2.87 s for 8 windows at 1 a pass, 2.91 s at 2 and 2.99 s at 4, 3.57 s at 8 (auris_batch_scaling).
constexpr size_t kEncoderWindowsPerPass = 2;

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

struct WindowBatch::Request {
  enum class Kind { kNone, kEncode, kDecode, kAlign };
  Kind kind = Kind::kNone;
  const LogMel* window = nullptr;                          // kEncode
  const std::vector<std::vector<int>>* rows = nullptr;     // kDecode
  const std::vector<int>* extra_positions = nullptr;
  std::vector<float>* logits = nullptr;                    // kDecode, kAlign
  std::vector<float>* extra_logits = nullptr;
  const std::vector<int>* tokens = nullptr;                // kAlign
  const std::vector<int>* logit_positions = nullptr;
  const std::vector<std::pair<int, int>>* heads = nullptr;
  std::vector<float>* cross_scores = nullptr;
  bool served = false;
  std::exception_ptr error;
};

struct WindowBatch::Slot {
  std::unique_ptr<SlotEngine> engine;
  CrossKVCache cross;
  std::unique_ptr<SelfKVCache> self;  // sized for the most rows this slot has decoded
  std::vector<float> prefill_logits;
  bool has_window = false;
  bool busy = false;    // its thread is running a job
  bool exited = false;  // its thread has been told there are no more jobs
  Request request;

  void ensure_rows(const ModelDims& d, int rows) {
    if (self && self->max_rows() >= rows) return;
    self = std::make_unique<SelfKVCache>(d.n_text_layer, rows, d.n_text_ctx, d.n_text_head, d.n_text_state / d.n_text_head);
  }
};

// A slot's WindowEngine: the caches stay in the slot; arithmetic is requested from the batch.
class WindowBatch::SlotEngine : public WindowEngine {
 public:
  SlotEngine(WindowBatch& batch, Slot& slot) : batch_(batch), slot_(slot) {}

  void set_window(const LogMel& window) override {
    Request r;
    r.kind = Request::Kind::kEncode;
    r.window = &window;
    batch_.post(slot_, r);
  }
  void logits(const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out,
              const std::vector<int>& extra_positions, std::vector<float>* extra_logits_out) override {
    if (!slot_.has_window) throw Error("decoder has no audio window: call set_window() first");
    Request r;
    r.kind = Request::Kind::kDecode;
    r.rows = &tokens;
    r.logits = &logits_out;
    r.extra_positions = &extra_positions;
    r.extra_logits = extra_logits_out;
    batch_.post(slot_, r);
  }
  void alignment_pass(const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                      const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
                      std::vector<float>& cross_scores) override {
    if (!slot_.has_window) throw Error("decoder has no audio window: call set_window() first");
    if (tokens.empty()) throw Error("alignment needs at least one token");
    Request r;
    r.kind = Request::Kind::kAlign;
    r.tokens = &tokens;
    r.logit_positions = &logit_positions;
    r.heads = &heads;
    r.logits = &logits;
    r.cross_scores = &cross_scores;
    batch_.post(slot_, r);
  }
  // The slot's own caches: no other slot is touched, and no pass runs while a slot thread is here
  // (a round starts only once every busy slot waits on a request).
  void rearrange_kv_cache(const std::vector<int>& source_rows) override {
    if (slot_.self) slot_.self->reorder(source_rows);
  }
  void reset() override {
    if (slot_.self) slot_.self->set_length(0);
  }
  int n_vocab() const override { return batch_.model_.dims.n_vocab; }
  EngineCounters counters() const override { return batch_.counters(); }
  // The batch runs the cache design only: the ablations are the sequential engine's.
  void set_ablations(const EngineAblations&) override {}

 private:
  WindowBatch& batch_;
  Slot& slot_;
};

WindowBatch::WindowBatch(const WhisperModel& model, int slots) : model_(model), encoder_(model), decoder_(model) {
  if (slots < 1) throw Error("a batch needs at least one window, got " + std::to_string(slots));
  for (int i = 0; i < slots; ++i) {
    slots_.push_back(std::make_unique<Slot>());
    slots_.back()->engine = std::make_unique<SlotEngine>(*this, *slots_.back());
  }
}

WindowBatch::~WindowBatch() = default;

EngineCounters WindowBatch::counters() const {
  std::lock_guard lock(mutex_);
  EngineCounters c = counters_;
  c.cross_kv_rows = model_.cross_kv_all_layers.rows_multiplied();
  for (const DecoderBlock& b : model_.decoder_blocks) {
    c.cross_query_rows += b.cross_query.rows_multiplied();
    c.self_qkv_rows += b.qkv.rows_multiplied();
  }
  return c;
}

void WindowBatch::post(Slot& slot, const Request& request) {
  std::unique_lock lock(mutex_);
  slot.request = request;
  posted_.notify_one();
  served_.wait(lock, [&] { return slot.request.served; });
  const std::exception_ptr error = slot.request.error;
  slot.request = Request();
  lock.unlock();
  if (error) std::rethrow_exception(error);
}

int WindowBatch::busy_slots() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(std::count_if(slots_.begin(), slots_.end(), [](const auto& s) { return s->busy; }));
}

void WindowBatch::run(const std::function<Job()>& next) {
  std::exception_ptr first_error;
  std::mutex error_mutex;
  {
    std::lock_guard lock(mutex_);
    for (auto& slot : slots_) slot->busy = slot->exited = false;
  }
  std::vector<std::thread> threads;
  for (auto& owned : slots_) {
    Slot* slot = owned.get();
    threads.emplace_back([&, slot] {
      const ScopedThreadCount one_thread(1);  // the slots' own work runs beside the passes, not in them
      for (;;) {
        Job job;
        try {
          job = next();
        } catch (...) {
          std::lock_guard lock(error_mutex);
          if (!first_error) first_error = std::current_exception();
        }
        if (!job) break;
        {
          std::lock_guard lock(mutex_);
          slot->busy = true;
        }
        try {
          job(*slot->engine);
        } catch (...) {
          std::lock_guard lock(error_mutex);
          if (!first_error) first_error = std::current_exception();
        }
        std::lock_guard lock(mutex_);
        slot->busy = false;
        posted_.notify_one();
      }
      std::lock_guard lock(mutex_);
      slot->exited = true;
      posted_.notify_one();
    });
  }

  // A round starts once no slot is in the middle of its own code: every slot in a job has posted a
  // request (slots waiting for a job hold nothing up). It ends the loop once every slot has exited.
  std::vector<Slot*> round;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      auto waiting = [](const Slot& s) { return s.request.kind != Request::Kind::kNone && !s.request.served; };
      posted_.wait(lock, [&] {
        bool any_posted = false, all_exited = true;
        for (const auto& s : slots_) {
          if (s->busy && !waiting(*s)) return false;
          any_posted = any_posted || (s->busy && waiting(*s));
          all_exited = all_exited && s->exited;
        }
        return any_posted || all_exited;
      });
      round.clear();
      for (auto& s : slots_)
        if (s->busy && waiting(*s)) round.push_back(s.get());
      if (round.empty()) break;  // every slot has run out of jobs
    }
    serve(round);
    {
      std::lock_guard lock(mutex_);
      for (Slot* s : round) s->request.served = true;
    }
    served_.notify_all();
  }
  for (std::thread& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

void WindowBatch::serve(std::vector<Slot*>& posted) {
  std::vector<Slot*> encodes, decodes;
  for (Slot* s : posted) {
    if (s->request.kind == Request::Kind::kEncode) encodes.push_back(s);
    if (s->request.kind == Request::Kind::kDecode) decodes.push_back(s);
  }
  if (!encodes.empty()) encode(encodes);
  if (!decodes.empty()) decode(decodes);
  for (Slot* s : posted)
    if (s->request.kind == Request::Kind::kAlign) align(*s);
}

void WindowBatch::encode(std::vector<Slot*>& slots) {
  const ModelDims& d = model_.dims;
  for (size_t first = 0; first < slots.size(); first += kEncoderWindowsPerPass) {
    std::vector<Slot*> pass(slots.begin() + first, slots.begin() + std::min(slots.size(), first + kEncoderWindowsPerPass));
    std::vector<const LogMel*> windows;
    std::vector<std::vector<float>*> outs;
    std::vector<Slot*> accepted;
    encoder_outputs_.resize(kEncoderWindowsPerPass);
    for (Slot* s : pass) {
      s->has_window = false;  // until this pass gives it one
      if (s->request.window->n_mels != d.n_mels || s->request.window->n_frames != 2 * d.n_audio_ctx) {
        try {
          std::vector<float> refused;
          encoder_.forward(*s->request.window, refused);  // throws the encoder's own message
        } catch (...) {
          s->request.error = std::current_exception();
        }
        continue;
      }
      windows.push_back(s->request.window);
      outs.push_back(&encoder_outputs_[accepted.size()]);
      accepted.push_back(s);
    }
    if (accepted.empty()) continue;
    try {
      auto start = std::chrono::steady_clock::now();
      encoder_.forward(windows, outs);
      const double encoder_seconds = seconds_since(start);
      start = std::chrono::steady_clock::now();
      for (size_t i = 0; i < accepted.size(); ++i) {
        Slot* s = accepted[i];
        s->cross.compute(model_, encoder_outputs_[i].data(), cross_projection_);
        s->has_window = true;
        if (s->self) s->self->set_length(0);
      }
      std::lock_guard lock(mutex_);
      counters_.encoder_windows += static_cast<long long>(accepted.size());
      counters_.encoder_seconds += encoder_seconds;
      counters_.cross_kv_seconds += seconds_since(start);
    } catch (...) {
      for (Slot* s : accepted) s->request.error = std::current_exception();
    }
  }
}

void WindowBatch::decode(std::vector<Slot*>& slots) {
  const ModelDims& d = model_.dims;
  std::vector<DecoderGroup> groups;
  std::vector<Slot*> members;
  std::vector<PrefillCall> prefills;  // one per member that prefills, in member order
  long long rows = 0;
  bool any_prefill = false, any_step = false;
  for (Slot* s : slots) {
    const Request& r = s->request;
    try {
      if (!s->self || s->self->length() == 0) {
        PrefillCall call = prefill_call(*r.rows, *r.extra_positions, r.extra_logits);
        check_tokens(call.prompt, 0, static_cast<int>(call.prompt.size()) - 1, d);
        s->ensure_rows(d, call.rows);
        groups.push_back({&s->cross, s->self.get(), /*prefill=*/true, call.prompt, call.logit_positions, &s->prefill_logits});
        prefills.push_back(std::move(call));
        any_prefill = true;
      } else {
        if (static_cast<int>(r.rows->size()) > s->self->max_rows()) throw Error("more sequences than were prefilled");
        std::vector<int> next = step_tokens(*r.rows, s->self->length());
        check_tokens(next, s->self->length(), s->self->length(), d);
        rows += static_cast<long long>(next.size());
        groups.push_back({&s->cross, s->self.get(), /*prefill=*/false, std::move(next), {}, r.logits});
        any_step = true;
      }
      members.push_back(s);
    } catch (...) {
      s->request.error = std::current_exception();
    }
  }
  if (groups.empty()) return;
  const auto start = std::chrono::steady_clock::now();
  try {
    decoder_.forward(groups);
  } catch (...) {
    for (Slot* s : members) s->request.error = std::current_exception();
    return;
  }
  const double seconds = seconds_since(start);
  size_t prefill = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (!groups[g].prefill) continue;
    Slot* s = members[g];
    s->self->share_prefix();
    replicate_prefill_logits(prefills[prefill++], s->prefill_logits, d.n_vocab, *s->request.logits, s->request.extra_logits);
  }
  std::lock_guard lock(mutex_);
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

void WindowBatch::align(Slot& s) {
  const Request& r = s.request;
  try {
    s.ensure_rows(model_.dims, 1);
    decoder_.prefill_capturing_cross_attention(*r.tokens, s.cross, *s.self, *r.logit_positions, *r.logits, *r.heads,
                                               *r.cross_scores);
    s.self->set_length(0);  // the pass is not a decode: the next logits() call starts a fresh prefill
  } catch (...) {
    s.request.error = std::current_exception();
  }
}

}  // namespace auris
