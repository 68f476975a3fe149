// The OpenMP threads the calling thread's parallel regions (our kernels and oneDNN's) use, for one
// scope. OpenMP keeps this count per thread, so each Transcriber can run on its own number of
// threads without touching the process-wide default or another thread's count.
#pragma once

#include <omp.h>

#include <string>

#include "auris/error.h"

namespace auris {

// More threads than this is a mistake, not a machine: OpenMP would start them all (100,000 crashed it).
inline constexpr int kMostThreads = 1024;

// Throws auris::Error unless threads is 0 (all cores) to kMostThreads.
inline void check_thread_count(int threads) {
  if (threads < 0 || threads > kMostThreads)
    throw Error("the thread count must be 0 (all cores) to " + std::to_string(kMostThreads) + ", got " +
                std::to_string(threads));
}

class ScopedThreadCount {
 public:
  // threads <= 0 keeps the calling thread's current count.
  explicit ScopedThreadCount(int threads) : previous_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~ScopedThreadCount() { omp_set_num_threads(previous_); }
  ScopedThreadCount(const ScopedThreadCount&) = delete;
  ScopedThreadCount& operator=(const ScopedThreadCount&) = delete;

 private:
  int previous_;
};

}  // namespace auris
