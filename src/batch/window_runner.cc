#include "batch/window_runner.h"

#include <atomic>

namespace auris {

void WindowRunner::run(int jobs, const std::function<void(WindowEngine& engine, int job)>& work) {
  std::atomic<int> next_job{0};
  run([&]() -> Job {
    const int job = next_job++;
    if (job >= jobs) return {};
    return [&work, job](WindowEngine& engine) { work(engine, job); };
  });
}

}  // namespace auris
