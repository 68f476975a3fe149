// Windows of many inputs decoded together on the CPU. Each window's work is the ordinary
// sequential code (a DecodingTask with its temperature fallback, segments, word timestamps), run on
// one of `slots` threads against that slot's WindowEngine. The engine does no arithmetic itself: it
// posts each request (encode a window, a prefill or a step, an alignment pass) and waits. The
// calling thread serves the requests in rounds: once every busy slot has posted one, it encodes the
// new windows together, then runs every slot's prefill or step as one decoder pass (each projection
// reads its weights once for all rows of all windows, each window attending over its own caches).
// A slot whose work is done takes the next job at once, so the batch stays full (continuous batching
// at window granularity).
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "auris/transcribe.h"
#include "batch/window_runner.h"
#include "whisper/decoder.h"
#include "whisper/encoder.h"
#include "whisper/window_engine.h"

namespace auris {

class WindowBatch final : public WindowRunner {
 public:
  // slots: how many windows are decoded together. Throws auris::Error below 1.
  WindowBatch(const WhisperModel& model, int slots);
  ~WindowBatch();
  WindowBatch(const WindowBatch&) = delete;
  WindowBatch& operator=(const WindowBatch&) = delete;

  // WindowRunner::run; the calling thread serves the engines' requests meanwhile. Jobs can come while
  // others run (a server's requests), and a slot waiting for one holds no round up; jobs should
  // catch what they can handle themselves. The slot threads run their own code (decoding
  // bookkeeping) on one OpenMP thread; the batched passes use the calling thread's count.
  using WindowRunner::run;
  void run(const std::function<Job()>& next) override;
  int busy_slots() const override;
  int slots() const override { return static_cast<int>(slots_.size()); }
  // Decoder passes count as decode_steps; the rows as the model's projections count them.
  EngineCounters counters() const override;

 private:
  class SlotEngine;
  struct Slot;
  struct Request;

  // Hands the coordinator a slot's request and blocks until it is served; rethrows its error.
  void post(Slot& slot, const Request& request);
  // One round: every posted request served.
  void serve(std::vector<Slot*>& posted);
  void encode(std::vector<Slot*>& slots);
  void decode(std::vector<Slot*>& slots);
  void align(Slot& slot);

  const WhisperModel& model_;
  Encoder encoder_;
  Decoder decoder_;
  std::vector<std::unique_ptr<Slot>> slots_;
  // An encoder pass's outputs and the cross K/V projection's scratch: used by one slot after another,
  // so a batch holds one pass's worth, not one per slot.
  std::vector<std::vector<float>> encoder_outputs_;
  std::vector<float> cross_projection_;

  mutable std::mutex mutex_;
  std::condition_variable posted_;  // a slot posted a request or finished its jobs
  std::condition_variable served_;  // the coordinator served a round
  EngineCounters counters_;
};

}  // namespace auris
