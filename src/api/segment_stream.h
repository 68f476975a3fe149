// A transcription read as a pull iterator (the Python package's lazy `segments` generator): the
// transcription starts on a thread of its own at the first next(), runs at most one window ahead of
// the reader, and stops before its next window once the stream is closed or destroyed.
#pragma once
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "auris/transcribe.h"

namespace auris {

class SegmentStream {
 public:
  // Runs a transcription with these options; the stream sets their on_segment and on_progress (a
  // caller's own on_progress is still called, on the stream's thread).
  using Transcription = std::function<Transcript(const TranscribeOptions&)>;

  SegmentStream(Transcription transcription, TranscribeOptions options);
  ~SegmentStream();  // close()
  SegmentStream(const SegmentStream&) = delete;
  SegmentStream& operator=(const SegmentStream&) = delete;

  enum class Next { kSegment, kEnd, kWaiting };
  // The next segment into `out` (kSegment), or kEnd once every segment was read, or kWaiting if
  // none came within `wait` (so a caller can look for Ctrl-C and ask again). At the end, rethrows
  // what the transcription threw (an auris::Error).
  Next next(Segment& out, std::chrono::milliseconds wait);
  // Stops the transcription before its next window and waits for its thread. Idempotent.
  void close();
  // The whole transcript, after next() gave kEnd.
  const Transcript& transcript() const { return transcript_; }

 private:
  void run();

  Transcription transcription_;
  TranscribeOptions options_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Segment> ready_;
  bool started_ = false, finished_ = false, closed_ = false;
  std::exception_ptr error_;
  Transcript transcript_;
  std::thread thread_;
};

}  // namespace auris
