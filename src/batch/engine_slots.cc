#include "batch/engine_slots.h"

#include <exception>
#include <string>
#include <thread>

#include "auris/error.h"
#include "util/thread_count.h"

namespace auris {

EngineSlots::EngineSlots(const std::function<std::unique_ptr<WindowEngine>()>& make_engine, int slots) {
  if (slots < 1) throw Error("a batch needs at least one window, got " + std::to_string(slots));
  for (int i = 0; i < slots; ++i) engines_.push_back(make_engine());
}

void EngineSlots::run(const std::function<Job()>& next) {
  std::exception_ptr first_error;
  std::vector<std::thread> threads;
  for (auto& owned : engines_) {
    WindowEngine* engine = owned.get();
    threads.emplace_back([&, engine] {
      const ScopedThreadCount one_thread(1);  // the host's share of a device engine's work is small
      for (;;) {
        Job job;
        try {
          job = next();
        } catch (...) {
          std::lock_guard lock(mutex_);
          if (!first_error) first_error = std::current_exception();
        }
        if (!job) break;
        {
          std::lock_guard lock(mutex_);
          ++busy_;
        }
        try {
          job(*engine);
        } catch (...) {
          std::lock_guard lock(mutex_);
          if (!first_error) first_error = std::current_exception();
        }
        std::lock_guard lock(mutex_);
        --busy_;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

int EngineSlots::busy_slots() const {
  std::lock_guard lock(mutex_);
  return busy_;
}

EngineCounters EngineSlots::counters() const {
  EngineCounters total;
  auto append = [](std::vector<float>& to, const std::vector<float>& from) {
    for (float ms : from)
      if (to.size() < EngineCounters::kDeviceTimesKept) to.push_back(ms);
  };
  for (const auto& engine : engines_) {
    const EngineCounters c = engine->counters();
    total.encoder_windows += c.encoder_windows;
    total.cross_kv_rows += c.cross_kv_rows;
    total.cross_query_rows += c.cross_query_rows;
    total.self_qkv_rows += c.self_qkv_rows;
    total.encoder_seconds += c.encoder_seconds;
    total.cross_kv_seconds += c.cross_kv_seconds;
    total.prefills += c.prefills;
    total.prefill_seconds += c.prefill_seconds;
    total.decode_steps += c.decode_steps;
    total.decode_rows += c.decode_rows;
    total.decode_seconds += c.decode_seconds;
    total.step_host_waits += c.step_host_waits;
    total.device_step_tails += c.device_step_tails;
    append(total.encoder_device_ms, c.encoder_device_ms);
    append(total.prefill_device_ms, c.prefill_device_ms);
    append(total.step_device_ms, c.step_device_ms);
  }
  return total;
}

}  // namespace auris
