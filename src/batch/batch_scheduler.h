// Batched transcription for requests that come and go while the batch runs (`auris serve`): every
// request's chunks join one batch (window_batch.h), handed out round-robin across requests, so a
// short request starts as soon as a slot frees instead of after the long ones before it; on the CPU
// every decoder step reads the weights once for the windows of all of them. Each request's segments are delivered in
// order as soon as its chunks are done; a cancelled request's chunks that have not started are
// dropped.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "audio/sample_source.h"
#include "auris/model.h"
#include "auris/transcribe.h"
#include "batch/window_batch.h"
#include "transcribe/speech_only_audio.h"

namespace auris {

class SileroVad;

class BatchScheduler {
 public:
  // Called from the batch's threads, one call at a time per request: on_segment for each segment
  // (ids from 0, times on the original timeline) in order, then once on_done with the whole
  // transcript or on_error with a message (also for a cancelled request). on_done and on_error are
  // required.
  struct Callbacks {
    std::function<void(const Segment&)> on_segment;
    std::function<void(Transcript)> on_done;
    std::function<void(const std::string& error)> on_error;
  };

  class Ticket {
   public:
    // Drops the request's chunks that have not started; on_error("cancelled") follows once the
    // running ones end. Thread-safe; a no-op once the request is done.
    void cancel() { cancelled_ = true; }
    bool cancelled() const { return cancelled_; }

   private:
    friend class BatchScheduler;
    std::atomic<bool> cancelled_{false};
  };

  struct Stats {
    int batch_size = 0;
    int busy_slots = 0;         // windows being decoded now
    long long queued_chunks = 0;  // chunks waiting for a slot
    int requests = 0;           // submitted and not yet done
  };

  // batch_size: windows decoded together (1 to 256); threads: CPU threads of the batched passes (0:
  // all cores). Throws auris::Error for a batch size out of range.
  BatchScheduler(std::shared_ptr<const Model> model, int batch_size, int threads);
  // Finishes every request in flight, then stops.
  ~BatchScheduler();
  BatchScheduler(const BatchScheduler&) = delete;
  BatchScheduler& operator=(const BatchScheduler&) = delete;

  // Checks the options, reads the audio once on the calling thread (its VAD pass, or its length),
  // then queues its chunks and returns. Throws auris::Error for bad options or audio that cannot be
  // read, before anything is queued. Audio without chunks (digital silence, or no speech with VAD)
  // gets on_done with an empty transcript before submit returns.
  // known_speech: what options.vad finds in this audio (its speech groups of at most 30 s), found
  // already by the caller; then the audio is not passed through the VAD again.
  std::shared_ptr<Ticket> submit(std::unique_ptr<SampleSource> audio, const TranscribeOptions& options,
                                 Callbacks callbacks, const SpeechDetection* known_speech = nullptr);

  Stats stats() const;
  EngineCounters counters() const { return batch_->counters(); }
  const Model& model() const { return *model_; }

 private:
  struct Request;

  // The next job for a slot: blocks until there is one, or returns an empty job once stopping and
  // nothing is left.
  WindowBatch::Job next();
  void detect_language(WindowEngine& engine, const std::shared_ptr<Request>& request);
  void transcribe_chunk(WindowEngine& engine, const std::shared_ptr<Request>& request, size_t chunk);
  // Records a chunk's segments (or error), delivers what is now in order, and ends the request after
  // its last chunk.
  void finish_chunk(Request& request, size_t chunk, std::vector<Segment> segments, const std::string& error);
  void request_ended();
  // The request leaves the queue with its chunks that have not started.
  void drop_unstarted(Request& request);
  const SileroVad& vad_model(const std::string& name_or_path);

  std::shared_ptr<const Model> model_;
  std::unique_ptr<WindowBatch> batch_;

  mutable std::mutex mutex_;
  std::condition_variable work_;
  std::deque<std::shared_ptr<Request>> queue_;  // requests with a job to hand out, in turn
  long long queued_chunks_ = 0;
  int requests_ = 0;
  bool stopping_ = false;

  std::mutex vad_mutex_;
  std::map<std::string, std::unique_ptr<SileroVad>> vads_;

  std::thread coordinator_;
};

}  // namespace auris
