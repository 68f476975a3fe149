// Windows of many inputs run side by side on a device whose engines each run whole windows (CUDA:
// every engine its own stream, caches and captured steps, so the device overlaps the slots' work).
// Each slot's thread runs its jobs against its own engine. The slots' decode steps do not share a
// weight read, as WindowBatch's do on the CPU: that needs the device's step to take rows of several
// windows at once.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "batch/window_runner.h"

namespace auris {

class EngineSlots final : public WindowRunner {
 public:
  // slots: engines made by make_engine, one a slot. Throws auris::Error below 1.
  EngineSlots(const std::function<std::unique_ptr<WindowEngine>()>& make_engine, int slots);

  using WindowRunner::run;
  void run(const std::function<Job()>& next) override;
  int busy_slots() const override;
  int slots() const override { return static_cast<int>(engines_.size()); }
  // The engines' counters added up (each device engine counts its own rows).
  EngineCounters counters() const override;

 private:
  std::vector<std::unique_ptr<WindowEngine>> engines_;
  mutable std::mutex mutex_;
  int busy_ = 0;
};

}  // namespace auris
