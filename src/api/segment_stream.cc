#include "api/segment_stream.h"

#include <utility>

#include "auris/error.h"

namespace auris {

SegmentStream::SegmentStream(Transcription transcription, TranscribeOptions options)
    : transcription_(std::move(transcription)), options_(std::move(options)) {}

SegmentStream::~SegmentStream() { close(); }

void SegmentStream::run() {
  TranscribeOptions options = options_;
  options.on_segment = [this](const Segment& s) {
    std::lock_guard lock(mutex_);
    if (closed_) throw Cancelled();
    ready_.push_back(s);
    changed_.notify_all();
  };
  // After each window: wait until the reader has taken its segments, so the transcription stays
  // one window ahead of it (faster-whisper's generator decodes only as it is iterated).
  options.on_progress = [this, user = options_.on_progress](double done, double total) {
    if (user) user(done, total);
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return ready_.empty() || closed_; });
    if (closed_) throw Cancelled();
  };
  Transcript transcript;
  std::exception_ptr error;
  try {
    transcript = transcription_(options);
  } catch (...) {
    error = std::current_exception();
  }
  std::lock_guard lock(mutex_);
  transcript_ = std::move(transcript);
  error_ = error;
  finished_ = true;
  changed_.notify_all();
}

SegmentStream::Next SegmentStream::next(Segment& out, std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  if (closed_) throw Error("the segment stream was closed");
  if (!started_) {
    started_ = true;
    thread_ = std::thread([this] { run(); });
  }
  if (!changed_.wait_for(lock, wait, [&] { return !ready_.empty() || finished_; })) return Next::kWaiting;
  if (!ready_.empty()) {
    out = std::move(ready_.front());
    ready_.pop_front();
    changed_.notify_all();
    return Next::kSegment;
  }
  if (error_) std::rethrow_exception(error_);
  return Next::kEnd;
}

void SegmentStream::close() {
  std::thread running;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    running = std::move(thread_);  // one caller joins it, however many close
    changed_.notify_all();
  }
  if (running.joinable()) running.join();
}

}  // namespace auris
