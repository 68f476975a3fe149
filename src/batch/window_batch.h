// Windows of many inputs decoded together. Each window's work is the ordinary sequential code (a
// DecodingTask with its temperature fallback, segments, word timestamps), run on one of the slots'
// threads against that slot's WindowEngine. The engine does no arithmetic itself: it posts each
// request (encode a window, a prefill or a step, an alignment pass) and waits. The calling thread
// serves the requests in rounds through the device's BatchPasses (whisper/batch_passes.h): once
// every busy slot has posted one, it encodes the new windows, then runs every slot's prefill or step
// as one decoder pass (each projection reads its weights once for all rows of all windows, each
// window attending over its own caches). A slot whose work is done takes the next job at once, so
// the batch stays full (continuous batching at window granularity).
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "auris/transcribe.h"
#include "whisper/engine_counters.h"
#include "whisper/batch_passes.h"
#include "whisper/whisper_model.h"
#include "whisper/window_engine.h"

namespace auris {

class WindowBatch {
 public:
  using Job = std::function<void(WindowEngine& engine)>;

  // One slot per slot of `passes`.
  explicit WindowBatch(std::unique_ptr<BatchPasses> passes);
  // On the CPU: CpuBatchPasses over the model. Throws auris::Error below 1 slot.
  WindowBatch(const WhisperModel& model, int slots);
  ~WindowBatch();
  WindowBatch(const WindowBatch&) = delete;
  WindowBatch& operator=(const WindowBatch&) = delete;

  // Runs every job next() hands out, each on a slot's thread with that slot's engine, until next()
  // has returned an empty Job to every slot and every job is done; the calling thread serves the
  // engines' requests meanwhile. next() is called from the slot threads, concurrently, and may
  // block until a job arrives (a server's requests), and a slot waiting for one holds no round up.
  // An exception escaping a job is rethrown here once all jobs have finished (the first one); jobs
  // should catch what they can handle themselves. The slot threads run their own code (decoding
  // bookkeeping) on one OpenMP thread; the batched passes use the calling thread's count.
  void run(const std::function<Job()>& next);
  // work(engine, job) for every job in [0, jobs).
  void run(int jobs, const std::function<void(WindowEngine& engine, int job)>& work);
  // Slots running a job now (the occupancy).
  int busy_slots() const;
  int slots() const { return static_cast<int>(slots_.size()); }
  // The passes' counters: decoder passes count as decode_steps.
  EngineCounters counters() const { return passes_->counters(); }

 private:
  class SlotEngine;
  struct Slot;
  struct Request;

  // Hands the coordinator a slot's request and blocks until it is served; rethrows its error.
  // Returns whether a propose request was proposed.
  bool post(Slot& slot, const Request& request);
  // One round: every posted request served.
  void serve(std::vector<Slot*>& posted);

  std::unique_ptr<BatchPasses> passes_;
  std::vector<std::unique_ptr<Slot>> slots_;
  mutable std::mutex mutex_;
  std::condition_variable posted_;  // a slot posted a request or finished its jobs
  std::condition_variable served_;  // the coordinator served a round
};

}  // namespace auris
