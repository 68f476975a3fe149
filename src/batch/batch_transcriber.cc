#include "auris/batch.h"

#include <algorithm>
#include <exception>
#include <map>
#include <mutex>
#include <optional>

#include "api/engine_access.h"
#include "api/model_impl.h"
#include "audio/finite_samples.h"
#include "audio/mel.h"
#include "audio/sample_source.h"
#include "auris/error.h"
#include "batch/chunk_packing.h"
#include "batch/chunk_reader.h"
#include "batch/chunk_transcription.h"
#include "batch/recording.h"
#include "model/model_download.h"
#include "transcribe/seek_loop.h"
#include "util/thread_count.h"
#include "vad/silero_vad.h"

namespace auris {
namespace {

constexpr int kMaxBatchSize = 256;

std::shared_future<std::shared_ptr<const Model>> loaded(std::shared_ptr<const Model> model) {
  std::promise<std::shared_ptr<const Model>> ready;
  ready.set_value(std::move(model));
  return ready.get_future().share();
}

}  // namespace

VadParameters batched_vad_parameters() {
  VadParameters p;
  p.max_speech_duration_s = kChunkSeconds;
  p.min_silence_duration_ms = 160;
  return p;
}

struct BatchTranscriber::Impl {
  Impl(std::shared_future<std::shared_ptr<const Model>> m, int size) : pending_model(std::move(m)), batch_size(size) {}

  bool model_ready() const {
    return batch || pending_model.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }

  // The batch, once the model has loaded (its loading error rethrown here).
  WindowBatch& ready() {
    if (!batch) {
      std::shared_ptr<const Model> loaded = pending_model.get();
      if (!loaded) throw Error("BatchTranscriber was given no model");
      model = std::move(loaded);
      batch = make_window_batch(model_impl(*model), batch_size);
    }
    return *batch;
  }

  const SileroVad& vad_model(const std::string& name_or_path) {
    const std::string path = resolve_vad_model_path(name_or_path, model_cache_dir());
    if (!vad || path != vad_path) {
      vad = std::make_unique<SileroVad>(path);
      vad_path = path;
    }
    return *vad;
  }

  // The language of every recording that does not know it yet, each detected on its first chunks.
  void detect_languages(std::vector<Recording>& recordings, const TranscribeOptions& options) {
    const ModelImpl& m = model_impl(*model);
    if (options.decoding.language || !m.tokenizer.multilingual()) {
      for (Recording& r : recordings) r.language = options.decoding.language.value_or("en");
      return;
    }
    std::vector<Recording*> pending;
    for (Recording& r : recordings)
      if (r.chunks() > 0 && r.error.empty()) pending.push_back(&r);
    batch->run(static_cast<int>(pending.size()), [&](WindowEngine& engine, int job) {
      Recording& r = *pending[job];
      try {
        detect_recording_language(engine, m.tokenizer, m.weights.dims.n_mels, options, r);
      } catch (const std::exception& e) {
        r.error = e.what();
      }
    });
  }

  // Every chunk of every recording through the batch, short ones packed together where asked for;
  // each recording handed to done() when its last chunk is.
  void transcribe(std::vector<Recording>& recordings, const TranscribeOptions& options,
                  const std::function<void(size_t, Recording&)>& done) {
    const ModelImpl& m = model_impl(*model);
    std::vector<TranscribeOptions> per_recording;
    std::vector<std::pair<size_t, size_t>> chunks;  // (recording, chunk), the batch's items
    for (size_t i = 0; i < recordings.size(); ++i) {
      Recording& r = recordings[i];
      per_recording.push_back(chunk_options(options, r.language));
      r.results.assign(r.chunks(), {});
      r.remaining = r.chunks();
      if (r.chunks() == 0 || !r.error.empty()) {
        r.remaining = 0;
        done(i, r);
        continue;
      }
      for (size_t c = 0; c < r.chunks(); ++c) chunks.emplace_back(i, c);
    }
    // Jobs: a chunk alone (an index into `chunks`), or a packed window (after them).
    std::vector<size_t> alone;
    std::vector<PackedChunk> packs;
    std::vector<bool> packed(chunks.size(), false);
    if (packing) {
      std::vector<PackCandidate> candidates;
      for (size_t k = 0; k < chunks.size(); ++k) {
        const auto [i, c] = chunks[k];
        const Recording& r = recordings[i];
        candidates.push_back({k, r.reader->samples_in(c), r.language});
      }
      packs = pack_chunks(candidates, packed);
    }
    for (size_t k = 0; k < chunks.size(); ++k)
      if (!packed[k]) alone.push_back(k);

    std::mutex mutex;
    // A chunk's segments, on the transcribed timeline, into its recording.
    auto deliver = [&](size_t k, std::vector<Segment> segments, const std::string& error) {
      const auto [i, c] = chunks[k];
      Recording& r = recordings[i];
      restore_chunk_times(r, segments);
      std::lock_guard lock(mutex);
      r.results[c] = std::move(segments);
      if (!error.empty() && r.error.empty()) r.error = error;
      if (--r.remaining == 0) done(i, r);
    };
    const int jobs = static_cast<int>(alone.size() + packs.size());
    batch->run(jobs, [&](WindowEngine& engine, int job) {
      if (static_cast<size_t>(job) < alone.size()) {
        const size_t k = alone[job];
        const auto [i, c] = chunks[k];
        std::vector<Segment> segments;
        std::string error;
        try {
          segments = transcribe_chunk(engine, m.tokenizer, m.weights.dims, per_recording[i], recordings[i].chunk(c));
        } catch (const std::exception& e) {
          error = e.what();
        }
        return deliver(k, std::move(segments), error);
      }
      const PackedChunk& pack = packs[job - alone.size()];
      std::vector<std::vector<Segment>> parts(pack.items.size());
      // One source that cannot be read (a file cut short since it was measured, say) fails alone: its
      // place in the window is silence, where no words fall.
      std::map<size_t, std::string> unread;
      auto samples_of = [&](size_t k) {
        Recording& r = recordings[chunks[k].first];
        try {
          return r.chunk(chunks[k].second).samples;
        } catch (const std::exception& e) {
          unread[k] = e.what();
          return std::vector<float>(static_cast<size_t>(r.reader->samples_in(chunks[k].second)), 0.0f);
        }
      };
      std::string error;
      try {
        AudioChunk audio{lay_out(pack, samples_of), 0.0, pack.items.back().start_s};
        TranscribeOptions with_words = per_recording[chunks[pack.items.front().source].first];
        with_words.word_timestamps = true;  // the words say which chunk a segment came from
        parts = split_packed(transcribe_chunk(engine, m.tokenizer, m.weights.dims, with_words, std::move(audio)), pack.items,
                             m.tokenizer, options.word_timestamps);
      } catch (const std::exception& e) {
        error = e.what();
      }
      for (size_t p = 0; p < pack.items.size(); ++p) {
        const size_t k = pack.items[p].source;
        const double offset = recordings[chunks[k].first].offsets[chunks[k].second];
        for (Segment& s : parts[p]) {
          s.seek = static_cast<int>(offset * 100.0 + 0.5);
          s.start += offset;
          s.end += offset;
          for (Word& w : s.words) {
            w.start += offset;
            w.end += offset;
          }
        }
        if (const auto failed = unread.find(k); failed != unread.end()) deliver(k, {}, failed->second);
        else deliver(k, std::move(parts[p]), error);
      }
    });
  }

  // Measure, detect the languages, transcribe, each recording handed to done() as soon as it is.
  void run(std::vector<std::unique_ptr<SampleSource>> sources, const TranscribeOptions& options,
           const std::function<void(size_t, Recording&)>& done) {
    std::vector<Recording> recordings(sources.size());
    const SileroVad* vad = nullptr;
    try {
      if (options.vad) vad = &vad_model(options.vad->model);
    } catch (const Error& e) {
      for (Recording& r : recordings) r.error = e.what();
      ready();
      return transcribe(recordings, options, done);
    }
    // Reading each file and finding its speech is one thread's work: files go to all the threads,
    // which would otherwise wait for it before the first window. One file keeps them all for the
    // products of its VAD's front end, or half of them while the model loads beside it (the CLI
    // loads it on the other half): both on every thread oversubscribe the cores, and each side's
    // spinning OpenMP threads wait for the other's.
    std::exception_ptr failure;
    const long count = static_cast<long>(sources.size());
    {
      const int all = omp_get_max_threads();
      const ScopedThreadCount beside_loading(count == 1 && !model_ready() ? all - all / 2 : 0);
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
      for (long i = 0; i < count; ++i) {
        try {
          recordings[i] = measure_recording(std::move(sources[i]), options, vad);
        } catch (const Error& e) {
          recordings[i].error = e.what();
        } catch (...) {
#pragma omp critical(auris_measure_failure)
          if (!failure) failure = std::current_exception();
        }
      }
    }
    if (failure) std::rethrow_exception(failure);
    ready();
    check_batch_options(options, &model_impl(*model).weights.dims);
    detect_languages(recordings, options);
    transcribe(recordings, options, done);
  }

  std::shared_future<std::shared_ptr<const Model>> pending_model;
  int batch_size;
  std::shared_ptr<const Model> model;  // and the batch, once ready() has run
  std::unique_ptr<WindowBatch> batch;
  int threads = 0;
  bool packing = false;
  std::unique_ptr<SileroVad> vad;
  std::string vad_path;
  size_t files_at_once = 128;  // transcribe_files' group (EngineAccess sets it for tests)
};

BatchTranscriber::BatchTranscriber(std::shared_ptr<const Model> model, int batch_size)
    : BatchTranscriber(loaded(std::move(model)), batch_size) {
  impl_->ready();
}

BatchTranscriber::BatchTranscriber(std::shared_future<std::shared_ptr<const Model>> model, int batch_size) {
  if (batch_size < 1 || batch_size > kMaxBatchSize)
    throw Error("the batch size must be 1 to " + std::to_string(kMaxBatchSize) + ", got " + std::to_string(batch_size));
  if (!model.valid()) throw Error("BatchTranscriber was given no model");
  impl_ = std::make_unique<Impl>(std::move(model), batch_size);
}

BatchTranscriber::~BatchTranscriber() = default;

void BatchTranscriber::set_threads(int threads) {
  check_thread_count(threads);
  impl_->threads = threads;
}

void BatchTranscriber::set_packing(bool on) { impl_->packing = on; }

EngineCounters EngineAccess::counters(const BatchTranscriber& batch) { return batch.impl_->ready().counters(); }

void BatchTranscriber::transcribe_files(const std::vector<std::string>& paths, const TranscribeOptions& options,
                                        const std::function<void(size_t, Transcript)>& on_done,
                                        const std::function<void(size_t, const std::string&)>& on_error) {
  if (impl_->model_ready()) impl_->ready();  // then the options are checked against it before any work
  check_batch_options(options, impl_->model ? &model_impl(*impl_->model).weights.dims : nullptr);
  const ScopedThreadCount thread_count(impl_->threads);
  // A group of files at a time: each one in the batch holds its reader (an open file and decoder)
  // and, when its language is detected first, its first chunk, so thousands at once would exhaust
  // the open files and grow memory with their number.
  std::mutex callback;
  for (size_t first = 0; first < paths.size(); first += impl_->files_at_once) {
    const size_t end = std::min(paths.size(), first + impl_->files_at_once);
    std::vector<std::unique_ptr<SampleSource>> sources;
    for (size_t i = first; i < end; ++i) sources.push_back(std::make_unique<AudioFileSource>(paths[i]));
    impl_->run(std::move(sources), options, [&](size_t i, Recording& r) {
      std::lock_guard lock(callback);
      if (!r.error.empty()) return on_error(first + i, r.error);
      on_done(first + i, assemble_transcript(r, options));
    });
  }
}

void EngineAccess::set_files_at_once(BatchTranscriber& batch, size_t files) { batch.impl_->files_at_once = files; }

Transcript BatchTranscriber::transcribe(std::span<const float> samples, int sample_rate, const TranscribeOptions& options) {
  if (sample_rate != kSampleRate)
    throw Error("audio must be 16000 Hz mono for Whisper, got " + std::to_string(sample_rate) +
                " Hz: resample it first (auris::load_audio does this for files)");
  if (samples.empty()) throw Error("the audio buffer is empty: there is nothing to transcribe");
  require_finite_samples(samples);
  impl_->ready();
  check_batch_options(options, &model_impl(*impl_->model).weights.dims);
  const ScopedThreadCount thread_count(impl_->threads);
  std::vector<std::unique_ptr<SampleSource>> sources;
  sources.push_back(std::make_unique<MemorySampleSource>(samples));
  Transcript result;
  std::string error;
  impl_->run(std::move(sources), options, [&](size_t, Recording& r) {
    if (!r.error.empty()) error = r.error;
    else result = assemble_transcript(r, options);
  });
  if (!error.empty()) throw Error(error);
  return result;
}

}  // namespace auris
