#include "auris/batch.h"

#include <algorithm>
#include <mutex>
#include <optional>

#include "api/model_impl.h"
#include "audio/mel_source.h"
#include "audio/sample_source.h"
#include "auris/error.h"
#include "batch/chunk_packing.h"
#include "batch/chunk_reader.h"
#include "batch/chunk_transcription.h"
#include "batch/window_batch.h"
#include "decoding/detect_language.h"
#include "model/model_download.h"
#include "transcribe/seek_loop.h"
#include "transcribe/speech_only_audio.h"
#include "transcribe/vad_filter.h"
#include "util/thread_count.h"
#include "vad/silero_vad.h"
#include "vad/speech_chunks.h"

namespace auris {
namespace {

constexpr int kMaxBatchSize = 256;

// One input: where its chunks lie, the reader that hands them out, and what they have given so far.
struct Recording {
  double duration = 0.0;
  double duration_after_vad = 0.0;
  std::vector<SpeechSpan> speech;  // with VAD: where the chunks' audio came from
  std::vector<double> offsets;     // each chunk's start on the transcribed timeline
  std::unique_ptr<ChunkReader> reader;
  std::optional<std::vector<float>> first_chunk;  // taken early, for language detection
  std::string language;
  std::vector<std::vector<Segment>> results;  // per chunk
  size_t remaining = 0;
  std::string error;  // the first error, if any

  size_t chunks() const { return offsets.size(); }
  AudioChunk chunk(size_t c) {
    if (c == 0 && first_chunk) {
      AudioChunk a{std::move(*first_chunk), offsets[0]};
      first_chunk.reset();
      return a;
    }
    return {reader->take(c), offsets[c]};
  }
};

// The options the batch cannot use, and the ones every chunk checks, before any work.
void check_options(const TranscribeOptions& options, const ModelDims& dims) {
  check_transcribe_options(options);
  if (options.word_timestamps && dims.alignment_heads.empty())
    throw Error("this model has no alignment heads, so word timestamps cannot be computed; transcribe without them");
  if (options.vad) validate(*options.vad);
}

double seconds(int64_t samples) { return static_cast<double>(samples) / kSampleRate; }

}  // namespace

VadParameters batched_vad_parameters() {
  VadParameters p;
  p.max_speech_duration_s = kChunkSeconds;
  p.min_silence_duration_ms = 160;
  return p;
}

struct BatchTranscriber::Impl {
  Impl(std::shared_ptr<const Model> m, int batch_size) : model(std::move(m)), batch(model->impl().weights, batch_size) {}

  const SileroVad& vad_model(const std::string& name_or_path) {
    const std::string path = resolve_vad_model_path(name_or_path, model_cache_dir());
    if (!vad || path != vad_path) {
      vad = std::make_unique<SileroVad>(path);
      vad_path = path;
    }
    return *vad;
  }

  // One pass over the recording finds its chunks: its speech grouped into at most 30 s
  // (faster-whisper's collect_chunks), or its consecutive 30-s windows; a second pass, as the batch
  // asks for them, reads them.
  Recording measure(std::unique_ptr<SampleSource> source, const TranscribeOptions& options) {
    Recording r;
    std::vector<int64_t> sizes;
    if (options.vad) {
      SpeechTimestampsOptions vad_options = speech_timestamps_options(*options.vad);
      vad_options.max_speech_duration_s = std::min<double>(vad_options.max_speech_duration_s, kChunkSeconds);
      const SpeechDetection speech = detect_speech(vad_model(options.vad->model), *source->open(), vad_options);
      if (speech.num_samples == 0) throw Error("'" + source->name() + "' contains no audio samples");
      r.duration = seconds(speech.num_samples);
      r.speech = speech.spans;
      for (const SpeechGroup& group : group_speech(r.speech, kChunkSeconds)) {
        sizes.push_back(group.num_samples);
        r.offsets.push_back(group.offset_s());
        r.duration_after_vad += group.duration_s();
      }
      source = std::make_unique<SpeechOnlyAudio>(std::move(source), r.speech);
    } else {
      const std::unique_ptr<SamplePass> pass = source->open();
      std::vector<float> block;
      int64_t n = 0;
      bool silent = true;  // digital silence: nothing to transcribe, where Whisper would hallucinate
      while (true) {
        block.clear();
        if (pass->read(block, 1 << 16) == 0) break;
        n += static_cast<int64_t>(block.size());
        silent = silent && std::all_of(block.begin(), block.end(), [](float x) { return x == 0.0f; });
      }
      if (n == 0) throw Error("'" + source->name() + "' contains no audio samples");
      r.duration = seconds(n);
      if (!silent) {
        r.duration_after_vad = r.duration;
        for (int64_t start = 0; start < n; start += kChunkSamples) {
          sizes.push_back(std::min<int64_t>(kChunkSamples, n - start));
          r.offsets.push_back(seconds(start));
        }
      }
    }
    r.reader = std::make_unique<ChunkReader>(std::move(source), std::move(sizes));
    return r;
  }

  // The language of every recording that does not know it yet, each detected on its first chunk.
  void detect_languages(std::vector<Recording>& recordings, const TranscribeOptions& options) {
    const Model::Impl& m = model->impl();
    if (options.decoding.language || !m.tokenizer.multilingual()) {
      for (Recording& r : recordings) r.language = options.decoding.language.value_or("en");
      return;
    }
    std::vector<Recording*> pending;
    for (Recording& r : recordings)
      if (r.chunks() > 0 && r.error.empty()) pending.push_back(&r);
    batch.run(static_cast<int>(pending.size()), [&](WindowEngine& engine, int job) {
      Recording& r = *pending[job];
      try {
        r.first_chunk = r.reader->take(0);
        InMemoryMel mel(*r.first_chunk, m.weights.dims.n_mels);
        engine.set_window(mel.window(0, kChunkFrames));  // openai detects over a whole padded window
        r.language = detect_language(engine, m.tokenizer).code;
      } catch (const Error& e) {
        r.error = e.what();
      }
    });
  }

  // Every chunk of every recording through the batch, short ones packed together where asked for;
  // each recording handed to done() when its last chunk is.
  void transcribe(std::vector<Recording>& recordings, const TranscribeOptions& options,
                  const std::function<void(size_t, Recording&)>& done) {
    const Model::Impl& m = model->impl();
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
      std::lock_guard lock(mutex);
      r.results[c] = std::move(segments);
      if (!error.empty() && r.error.empty()) r.error = error;
      if (--r.remaining == 0) done(i, r);
    };
    const int jobs = static_cast<int>(alone.size() + packs.size());
    batch.run(jobs, [&](WindowEngine& engine, int job) {
      if (static_cast<size_t>(job) < alone.size()) {
        const size_t k = alone[job];
        const auto [i, c] = chunks[k];
        std::vector<Segment> segments;
        std::string error;
        try {
          segments = transcribe_chunk(engine, m.tokenizer, m.weights.dims, per_recording[i], recordings[i].chunk(c));
        } catch (const Error& e) {
          error = e.what();
        }
        return deliver(k, std::move(segments), error);
      }
      const PackedChunk& pack = packs[job - alone.size()];
      std::vector<std::vector<Segment>> parts(pack.items.size());
      std::string error;
      try {
        AudioChunk audio{lay_out(pack, [&](size_t k) { return recordings[chunks[k].first].chunk(chunks[k].second).samples; }),
                         0.0};
        TranscribeOptions with_words = per_recording[chunks[pack.items.front().source].first];
        with_words.word_timestamps = true;  // the words say which chunk a segment came from
        parts = split_packed(transcribe_chunk(engine, m.tokenizer, m.weights.dims, with_words, audio), pack.items,
                             m.tokenizer, options.word_timestamps);
      } catch (const Error& e) {
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
        deliver(k, std::move(parts[p]), error);
      }
    });
  }

  static Transcript assemble(Recording& r, const TranscribeOptions& options) {
    Transcript t;
    t.language = r.language;
    t.word_timestamps = options.word_timestamps;
    t.duration = r.duration;
    t.duration_after_vad = r.duration_after_vad;
    const std::optional<SpeechTimeMap> map = r.speech.empty() ? std::nullopt : std::optional<SpeechTimeMap>(r.speech);
    for (std::vector<Segment>& chunk : r.results)
      for (Segment& s : chunk) {
        if (map) restore_speech_timestamps(s, *map);
        s.id = static_cast<int>(t.segments.size());
        t.text += s.text;
        t.segments.push_back(std::move(s));
      }
    r = Recording();  // its reader (an open file) and results are done with
    return t;
  }

  // Measure, detect the languages, transcribe, each recording handed to done() as soon as it is.
  void run(std::vector<std::unique_ptr<SampleSource>> sources, const TranscribeOptions& options,
           const std::function<void(size_t, Recording&)>& done) {
    std::vector<Recording> recordings(sources.size());
    for (size_t i = 0; i < sources.size(); ++i) {
      try {
        recordings[i] = measure(std::move(sources[i]), options);
      } catch (const Error& e) {
        recordings[i].error = e.what();
      }
    }
    detect_languages(recordings, options);
    transcribe(recordings, options, done);
  }

  std::shared_ptr<const Model> model;
  WindowBatch batch;
  int threads = 0;
  bool packing = false;
  std::unique_ptr<SileroVad> vad;
  std::string vad_path;
};

BatchTranscriber::BatchTranscriber(std::shared_ptr<const Model> model, int batch_size) {
  if (batch_size < 1 || batch_size > kMaxBatchSize)
    throw Error("the batch size must be 1 to " + std::to_string(kMaxBatchSize) + ", got " + std::to_string(batch_size));
  impl_ = std::make_unique<Impl>(std::move(model), batch_size);
}

BatchTranscriber::~BatchTranscriber() = default;

void BatchTranscriber::set_threads(int threads) {
  if (threads < 0) throw Error("the thread count must be 0 (all cores) or more, got " + std::to_string(threads));
  impl_->threads = threads;
}

void BatchTranscriber::set_packing(bool on) { impl_->packing = on; }

EngineCounters BatchTranscriber::counters() const { return impl_->batch.counters(); }

void BatchTranscriber::transcribe_files(const std::vector<std::string>& paths, const TranscribeOptions& options,
                                        const std::function<void(size_t, Transcript)>& on_done,
                                        const std::function<void(size_t, const std::string&)>& on_error) {
  check_options(options, impl_->model->impl().weights.dims);
  const ScopedThreadCount thread_count(impl_->threads);
  std::vector<std::unique_ptr<SampleSource>> sources;
  for (const std::string& path : paths) sources.push_back(std::make_unique<AudioFileSource>(path));
  std::mutex callback;
  impl_->run(std::move(sources), options, [&](size_t i, Recording& r) {
    std::lock_guard lock(callback);
    if (!r.error.empty()) return on_error(i, r.error);
    on_done(i, Impl::assemble(r, options));
  });
}

Transcript BatchTranscriber::transcribe(std::span<const float> samples, int sample_rate, const TranscribeOptions& options) {
  if (sample_rate != kSampleRate)
    throw Error("audio must be 16000 Hz mono for Whisper, got " + std::to_string(sample_rate) +
                " Hz: resample it first (auris::load_audio does this for files)");
  if (samples.empty()) throw Error("the audio buffer is empty: there is nothing to transcribe");
  check_options(options, impl_->model->impl().weights.dims);
  const ScopedThreadCount thread_count(impl_->threads);
  std::vector<std::unique_ptr<SampleSource>> sources;
  sources.push_back(std::make_unique<MemorySampleSource>(samples));
  Transcript result;
  std::string error;
  impl_->run(std::move(sources), options, [&](size_t, Recording& r) {
    if (!r.error.empty()) error = r.error;
    else result = Impl::assemble(r, options);
  });
  if (!error.empty()) throw Error(error);
  return result;
}

}  // namespace auris
