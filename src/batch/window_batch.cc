#include "batch/window_batch.h"

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>

#include "auris/error.h"
#include "util/thread_count.h"
#include "whisper/cpu_batch_passes.h"

namespace auris {

struct WindowBatch::Request {
  enum class Kind { kNone, kEncode, kDecode, kAlign };
  Kind kind = Kind::kNone;
  const LogMel* window = nullptr;                          // kEncode
  const std::vector<std::vector<int>>* rows = nullptr;     // kDecode
  const std::vector<int>* extra_positions = nullptr;
  std::vector<float>* logits = nullptr;                    // kDecode, kAlign
  std::vector<float>* extra_logits = nullptr;
  const StepRules* rules = nullptr;                        // kDecode, an Inference::propose call
  Selection selection = Selection::kArgmax;
  int k = 1;
  StepProposals* proposals = nullptr;
  bool proposed = false;
  const std::vector<int>* tokens = nullptr;                // kAlign
  const std::vector<int>* logit_positions = nullptr;
  const std::vector<std::pair<int, int>>* heads = nullptr;
  std::vector<float>* cross_scores = nullptr;
  bool served = false;
  std::exception_ptr error;
};

struct WindowBatch::Slot {
  int index = 0;
  std::unique_ptr<SlotEngine> engine;
  bool busy = false;    // its thread is running a job
  bool exited = false;  // its thread has been told there are no more jobs
  Request request;
};

// A slot's WindowEngine: its window and caches live in the batch's passes, which do its arithmetic
// when the batch serves its requests.
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
    if (!batch_.passes_->has_window(slot_.index)) throw Error("decoder has no audio window: call set_window() first");
    Request r;
    r.kind = Request::Kind::kDecode;
    r.rows = &tokens;
    r.logits = &logits_out;
    r.extra_positions = &extra_positions;
    r.extra_logits = extra_logits_out;
    batch_.post(slot_, r);
  }
  bool propose(const std::vector<std::vector<int>>& tokens, const StepRules& rules, Selection selection, int k,
               StepProposals& out) override {
    if (!batch_.passes_->proposes() || !batch_.passes_->has_window(slot_.index)) return false;
    Request r;
    r.kind = Request::Kind::kDecode;
    r.rows = &tokens;
    r.rules = &rules;
    r.selection = selection;
    r.k = k;
    r.proposals = &out;
    return batch_.post(slot_, r);
  }
  void alignment_pass(const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                      const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
                      std::vector<float>& cross_scores) override {
    if (!batch_.passes_->has_window(slot_.index)) throw Error("decoder has no audio window: call set_window() first");
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
  // The slot's own caches: no pass runs while a slot thread is here (a round starts only once every
  // busy slot waits on a request).
  void rearrange_kv_cache(const std::vector<int>& source_rows) override { batch_.passes_->rearrange(slot_.index, source_rows); }
  void reset() override { batch_.passes_->reset(slot_.index); }
  int n_vocab() const override { return batch_.passes_->n_vocab(); }
  EngineCounters counters() const override { return batch_.counters(); }
  // The batch runs the cache design only: the ablations are the sequential engine's.
  void set_ablations(const EngineAblations&) override {}

 private:
  WindowBatch& batch_;
  Slot& slot_;
};

WindowBatch::WindowBatch(std::unique_ptr<BatchPasses> passes) : passes_(std::move(passes)) {
  for (int i = 0; i < passes_->slots(); ++i) {
    slots_.push_back(std::make_unique<Slot>());
    slots_.back()->index = i;
    slots_.back()->engine = std::make_unique<SlotEngine>(*this, *slots_.back());
  }
}

WindowBatch::WindowBatch(const WhisperModel& model, int slots)
    : WindowBatch(std::make_unique<CpuBatchPasses>(model, slots)) {}

WindowBatch::~WindowBatch() = default;

bool WindowBatch::post(Slot& slot, const Request& request) {
  std::unique_lock lock(mutex_);
  slot.request = request;
  posted_.notify_one();
  served_.wait(lock, [&] { return slot.request.served; });
  const std::exception_ptr error = slot.request.error;
  const bool proposed = slot.request.proposed;
  slot.request = Request();
  lock.unlock();
  if (error) std::rethrow_exception(error);
  return proposed;
}

void WindowBatch::run(int jobs, const std::function<void(WindowEngine& engine, int job)>& work) {
  std::atomic<int> next_job{0};
  run([&]() -> Job {
    const int job = next_job++;
    if (job >= jobs) return {};
    return [&work, job](WindowEngine& engine) { work(engine, job); };
  });
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
  std::vector<BatchPasses::Encode> encodes;
  std::vector<BatchPasses::Decode> decodes;
  std::vector<Slot*> encoding, decoding;
  for (Slot* s : posted) {
    const Request& r = s->request;
    if (r.kind == Request::Kind::kEncode) {
      encodes.push_back({s->index, r.window, nullptr});
      encoding.push_back(s);
    }
    if (r.kind == Request::Kind::kDecode) {
      BatchPasses::Decode d;
      d.slot = s->index, d.rows = r.rows, d.extra_positions = r.extra_positions, d.logits = r.logits;
      d.extra_logits = r.extra_logits, d.rules = r.rules, d.selection = r.selection, d.k = r.k, d.proposals = r.proposals;
      decodes.push_back(d);
      decoding.push_back(s);
    }
  }
  if (!encodes.empty()) passes_->encode(encodes);
  for (size_t i = 0; i < encodes.size(); ++i) encoding[i]->request.error = encodes[i].error;
  if (!decodes.empty()) passes_->decode(decodes);
  for (size_t i = 0; i < decodes.size(); ++i) {
    decoding[i]->request.error = decodes[i].error;
    decoding[i]->request.proposed = decodes[i].proposed;
  }
  for (Slot* s : posted) {
    Request& r = s->request;
    if (r.kind != Request::Kind::kAlign) continue;
    try {
      passes_->align(s->index, *r.tokens, *r.logit_positions, *r.heads, *r.logits, *r.cross_scores);
    } catch (...) {
      r.error = std::current_exception();
    }
  }
}

}  // namespace auris
