#include "server/server_metrics.h"

#include <sstream>

namespace auris::server {

void ServerMetrics::record_request(int status, double seconds) {
  std::lock_guard lock(mutex_);
  ++requests_by_status_[status];
  for (size_t b = 0; b < kBuckets.size(); ++b)
    if (seconds <= kBuckets[b]) ++bucket_counts_[b];
  ++duration_count_;
  duration_sum_ += seconds;
}

void ServerMetrics::add_audio_seconds(double seconds) {
  std::lock_guard lock(mutex_);
  audio_seconds_ += seconds;
}

void ServerMetrics::set_realtime_sessions(int sessions) {
  std::lock_guard lock(mutex_);
  realtime_sessions_ = sessions;
}

std::string ServerMetrics::prometheus(int requests_in_flight,
                                     const std::vector<std::pair<std::string, BatchScheduler::Stats>>& models) const {
  std::ostringstream out;
  std::lock_guard lock(mutex_);
  out << "# HELP auris_requests_total HTTP requests answered, by status.\n# TYPE auris_requests_total counter\n";
  for (const auto& [status, count] : requests_by_status_)
    out << "auris_requests_total{status=\"" << status << "\"} " << count << "\n";
  out << "# HELP auris_request_duration_seconds Time from a request's arrival to its answer.\n"
         "# TYPE auris_request_duration_seconds histogram\n";
  for (size_t b = 0; b < kBuckets.size(); ++b)
    out << "auris_request_duration_seconds_bucket{le=\"" << kBuckets[b] << "\"} " << bucket_counts_[b] << "\n";
  out << "auris_request_duration_seconds_bucket{le=\"+Inf\"} " << duration_count_ << "\n"
      << "auris_request_duration_seconds_sum " << duration_sum_ << "\n"
      << "auris_request_duration_seconds_count " << duration_count_ << "\n";
  out << "# HELP auris_audio_seconds_total Seconds of audio transcribed.\n# TYPE auris_audio_seconds_total counter\n"
      << "auris_audio_seconds_total " << audio_seconds_ << "\n";
  out << "# HELP auris_requests_in_flight Transcription requests admitted and not yet answered.\n"
         "# TYPE auris_requests_in_flight gauge\nauris_requests_in_flight "
      << requests_in_flight << "\n";
  out << "# HELP auris_realtime_sessions Realtime transcription sessions (WebSocket /v1/realtime) open.\n"
         "# TYPE auris_realtime_sessions gauge\nauris_realtime_sessions "
      << realtime_sessions_ << "\n";
  out << "# HELP auris_queue_depth Chunks (30-s windows or speech chunks) waiting for a batch slot.\n"
         "# TYPE auris_queue_depth gauge\n";
  for (const auto& [name, stats] : models) out << "auris_queue_depth{model=\"" << name << "\"} " << stats.queued_chunks << "\n";
  out << "# HELP auris_batch_occupancy Batch slots decoding a window, over the batch size.\n"
         "# TYPE auris_batch_occupancy gauge\n";
  for (const auto& [name, stats] : models)
    out << "auris_batch_occupancy{model=\"" << name << "\"} "
        << (stats.batch_size > 0 ? static_cast<double>(stats.busy_slots) / stats.batch_size : 0.0) << "\n";
  return out.str();
}

}  // namespace auris::server
