#include "batch/batch_scheduler.h"

#include <vector>

#include "api/model_impl.h"
#include "auris/error.h"
#include "batch/chunk_transcription.h"
#include "batch/recording.h"
#include "model/model_download.h"
#include "util/thread_count.h"
#include "vad/silero_vad.h"

namespace auris {
namespace {

constexpr int kMaxBatchSize = 256;

int checked_batch_size(int batch_size) {
  if (batch_size < 1 || batch_size > kMaxBatchSize)
    throw Error("the batch size must be 1 to " + std::to_string(kMaxBatchSize) + ", got " + std::to_string(batch_size));
  return batch_size;
}

}  // namespace

struct BatchScheduler::Request {
  Recording recording;
  TranscribeOptions options;        // as submitted
  TranscribeOptions chunk_options;  // every chunk's, once the language is known
  Callbacks callbacks;
  std::shared_ptr<Ticket> ticket = std::make_shared<Ticket>();

  // Guarded by the scheduler's mutex.
  bool language_known = false;
  size_t next_chunk = 0;  // the next chunk to hand out

  // Guarded by `mutex`, which also keeps the callbacks one at a time.
  std::mutex mutex;
  std::vector<bool> finished;
  size_t next_to_deliver = 0;
  size_t remaining = 0;  // chunks not finished or dropped
  int next_segment_id = 0;
  std::string error;

  size_t unstarted() const { return recording.chunks() - next_chunk; }
};

BatchScheduler::BatchScheduler(std::shared_ptr<const Model> model, int batch_size, int threads)
    : model_(std::move(model)),
      batch_(make_window_batch(model_impl(*model_), checked_batch_size(batch_size))) {
  check_thread_count(threads);
  coordinator_ = std::thread([this, threads] {
    const ScopedThreadCount thread_count(threads);
    batch_->run([this] { return next(); });
  });
}

BatchScheduler::~BatchScheduler() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_.notify_all();
  coordinator_.join();
}

const SileroVad& BatchScheduler::vad_model(const std::string& name_or_path) {
  const std::string path = resolve_vad_model_path(name_or_path, model_cache_dir());
  std::lock_guard lock(vad_mutex_);
  std::unique_ptr<SileroVad>& vad = vads_[path];
  if (!vad) vad = std::make_unique<SileroVad>(path);
  return *vad;
}

std::shared_ptr<BatchScheduler::Ticket> BatchScheduler::submit(std::unique_ptr<SampleSource> audio,
                                                               const TranscribeOptions& options, Callbacks callbacks,
                                                               const SpeechDetection* known_speech) {
  const ModelImpl& m = model_impl(*model_);
  check_batch_options(options, &m.weights.dims);
  auto request = std::make_shared<Request>();
  request->options = options;
  request->callbacks = std::move(callbacks);
  request->recording =
      measure_recording(std::move(audio), options,
                        options.vad && !known_speech ? &vad_model(options.vad->model) : nullptr, known_speech);
  Recording& r = request->recording;
  request->language_known = options.decoding.language || !m.tokenizer.multilingual();
  if (request->language_known) r.language = options.decoding.language.value_or("en");
  request->chunk_options = chunk_options(options, r.language);
  r.results.assign(r.chunks(), {});
  request->finished.assign(r.chunks(), false);
  request->remaining = r.chunks();
  if (r.chunks() == 0) {
    if (request->callbacks.on_done) request->callbacks.on_done(assemble_transcript(r, options));
    return request->ticket;
  }
  {
    std::lock_guard lock(mutex_);
    if (stopping_) throw Error("the server is shutting down");
    queue_.push_back(request);
    queued_chunks_ += static_cast<long long>(r.chunks());
    ++requests_;
  }
  work_.notify_all();  // a slot for each of its chunks: one woken slot took them one at a time
  return request->ticket;
}

WindowBatch::Job BatchScheduler::next() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_.wait(lock, [&] { return !queue_.empty() || stopping_; });
    if (queue_.empty()) return {};  // stopping, and nothing is left to start
    std::shared_ptr<Request> request = queue_.front();
    queue_.pop_front();
    if (request->ticket->cancelled()) {
      queued_chunks_ -= static_cast<long long>(request->unstarted());
      lock.unlock();
      drop_unstarted(*request);
      lock.lock();
      continue;
    }
    if (!request->language_known) {
      // Off the queue until its language is known; its chunks wait for that.
      return [this, request](WindowEngine& engine) { detect_language(engine, request); };
    }
    const size_t chunk = request->next_chunk++;
    --queued_chunks_;
    if (request->unstarted() > 0) {
      queue_.push_back(request);
      work_.notify_one();  // its next chunk, for a slot still waiting
    }
    return [this, request, chunk](WindowEngine& engine) { transcribe_chunk(engine, request, chunk); };
  }
}

void BatchScheduler::detect_language(WindowEngine& engine, const std::shared_ptr<Request>& request) {
  const ModelImpl& m = model_impl(*model_);
  try {
    detect_recording_language(engine, m.tokenizer, m.weights.dims.n_mels, request->options, request->recording);
  } catch (const std::exception& e) {
    {
      std::lock_guard lock(mutex_);
      queued_chunks_ -= static_cast<long long>(request->unstarted());
    }
    std::lock_guard lock(request->mutex);
    request->error = e.what();
    request->remaining = 0;
    request_ended();
    request->callbacks.on_error(request->error);
    return;
  }
  request->chunk_options = chunk_options(request->options, request->recording.language);
  {
    std::lock_guard lock(mutex_);
    request->language_known = true;
    queue_.push_front(request);  // it has waited its turn already
  }
  work_.notify_all();
}

void BatchScheduler::transcribe_chunk(WindowEngine& engine, const std::shared_ptr<Request>& request, size_t chunk) {
  const ModelImpl& m = model_impl(*model_);
  std::vector<Segment> segments;
  std::string error;
  try {
    segments = auris::transcribe_chunk(engine, m.tokenizer, m.weights.dims, request->chunk_options,
                                       request->recording.chunk(chunk));
    restore_chunk_times(request->recording, segments);
  } catch (const std::exception& e) {
    error = e.what();
  }
  finish_chunk(*request, chunk, std::move(segments), error);
}

void BatchScheduler::drop_unstarted(Request& request) {
  // Every chunk handed out has been counted in `remaining` and finishes on its own; the rest go now.
  size_t dropped;
  {
    std::lock_guard lock(mutex_);
    dropped = request.unstarted();
    request.next_chunk = request.recording.chunks();
  }
  std::lock_guard lock(request.mutex);
  request.remaining -= dropped;
  if (request.error.empty()) request.error = "cancelled";
  if (request.remaining == 0) {
    request_ended();
    request.callbacks.on_error(request.error);
  }
}

void BatchScheduler::finish_chunk(Request& request, size_t chunk, std::vector<Segment> segments,
                                  const std::string& error) {
  std::lock_guard lock(request.mutex);
  Recording& r = request.recording;
  r.results[chunk] = std::move(segments);
  request.finished[chunk] = true;
  if (!error.empty() && request.error.empty()) request.error = error;
  if (request.ticket->cancelled() && request.error.empty()) request.error = "cancelled";
  while (request.error.empty() && request.next_to_deliver < r.chunks() && request.finished[request.next_to_deliver]) {
    for (Segment& s : r.results[request.next_to_deliver]) {
      s.id = request.next_segment_id++;
      if (request.callbacks.on_segment) request.callbacks.on_segment(s);
    }
    ++request.next_to_deliver;
  }
  if (--request.remaining > 0) return;
  request_ended();
  if (!request.error.empty()) request.callbacks.on_error(request.error);
  else request.callbacks.on_done(assemble_transcript(r, request.options));
}

void BatchScheduler::request_ended() {
  // Before the last callback, so that whoever it wakes no longer sees the request in stats().
  std::lock_guard lock(mutex_);
  --requests_;
}

BatchScheduler::Stats BatchScheduler::stats() const {
  Stats s;
  s.batch_size = batch_->slots();
  s.busy_slots = batch_->busy_slots();
  std::lock_guard lock(mutex_);
  s.queued_chunks = queued_chunks_;
  s.requests = requests_;
  return s;
}

}  // namespace auris
