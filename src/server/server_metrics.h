// The server's counters in Prometheus' text format (GET /metrics): requests by status, a latency
// histogram, audio seconds transcribed, realtime sessions open, and each model's queue and batch
// occupancy.
#pragma once

#include <array>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "batch/batch_scheduler.h"

namespace auris::server {

class ServerMetrics {
 public:
  // One finished request: its status, and how long it took from its first byte to its last.
  void record_request(int status, double seconds);
  void add_audio_seconds(double seconds);
  void set_realtime_sessions(int sessions);

  // Every metric, with the transcription requests in flight now (read at the scrape: a gauge set
  // by each request could be left at a stale value by two requests changing it at once) and each
  // model's scheduler stats (name, stats).
  std::string prometheus(int requests_in_flight,
                         const std::vector<std::pair<std::string, BatchScheduler::Stats>>& models) const;

  static constexpr std::array<double, 12> kBuckets = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300};

 private:
  mutable std::mutex mutex_;
  std::map<int, long long> requests_by_status_;
  std::array<long long, kBuckets.size()> bucket_counts_{};
  long long duration_count_ = 0;
  double duration_sum_ = 0;
  double audio_seconds_ = 0;
  int realtime_sessions_ = 0;
};

}  // namespace auris::server
