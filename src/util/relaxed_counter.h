// A statistic that threads sharing a const object may bump at the same time: a relaxed atomic, so
// concurrent increments are neither lost nor a data race, and no thread waits on another. Copies
// take the value (the objects that hold one are built, moved and copied at load).
#pragma once

#include <atomic>
#include <cstdint>

namespace auris {

class RelaxedCounter {
 public:
  RelaxedCounter() = default;
  RelaxedCounter(const RelaxedCounter& other) : value_(other.get()) {}
  RelaxedCounter& operator=(const RelaxedCounter& other) {
    value_.store(other.get(), std::memory_order_relaxed);
    return *this;
  }

  void add(int64_t n) const { value_.fetch_add(n, std::memory_order_relaxed); }
  int64_t get() const { return value_.load(std::memory_order_relaxed); }

 private:
  mutable std::atomic<int64_t> value_{0};
};

}  // namespace auris
