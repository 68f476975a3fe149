// What runs many inputs' windows at once: jobs (one window's or one chunk's sequential decoding code)
// handed to slots, each slot with a WindowEngine. On the CPU, WindowBatch serves every slot's
// requests in shared passes (one weight read for all windows); on a device whose engines run whole
// windows themselves (CUDA), EngineSlots runs the slots side by side, each on its own engine.
#pragma once

#include <functional>
#include <memory>

#include "whisper/engine_counters.h"
#include "whisper/window_engine.h"

namespace auris {


class WindowRunner {
 public:
  using Job = std::function<void(WindowEngine& engine)>;
  virtual ~WindowRunner() = default;

  // Runs every job next() hands out, each on a slot's thread with that slot's engine, until next()
  // has returned an empty Job to every slot and every job is done. next() is called from the slot
  // threads, concurrently, and may block until a job arrives. An exception escaping a job is
  // rethrown here once all jobs have finished (the first one).
  virtual void run(const std::function<Job()>& next) = 0;
  // work(engine, job) for every job in [0, jobs).
  void run(int jobs, const std::function<void(WindowEngine& engine, int job)>& work);
  // Slots running a job now (the occupancy).
  virtual int busy_slots() const = 0;
  virtual int slots() const = 0;
  // Windows encoded, decoder passes and the rows they carried, and each stage's time, so far.
  virtual EngineCounters counters() const = 0;
};

}  // namespace auris
