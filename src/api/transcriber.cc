#include <algorithm>
#include <cmath>
#include <memory>

#include "api/engine_access.h"
#include "api/model_impl.h"
#include "audio/finite_samples.h"
#include "audio/mel.h"
#include "audio/mel_source.h"
#include "audio/sample_source.h"
#include "audio/streaming_mel.h"
#include "auris/error.h"
#include "auris/transcribe.h"
#include "decoding/decoding_task.h"
#include "decoding/detect_language.h"
#include "decoding/strip_whitespace.h"
#include "model/model_download.h"
#include "transcribe/clip_timestamps.h"
#include "transcribe/silence_skipping.h"
#include "transcribe/temperature_fallback.h"
#include "transcribe/speech_only_audio.h"
#include "transcribe/vad_filter.h"
#include "transcribe/window_segments.h"
#include "transcribe/word_timestamps.h"
#include "util/thread_count.h"
#include "vad/ggml_vad_file.h"
#include "vad/silero_vad.h"
#include "vad/speech_chunks.h"
#include "transcribe/seek_loop.h"
#include "whisper/window_engine.h"

namespace auris {

// The session's engine: workspaces and caches sized once, reused for every window.
struct Transcriber::State {
  explicit State(const ModelImpl& m) : model(m), engine(make_window_engine(m)), windows(*engine) {}

  // The seek loop over any source of log-mel windows (in memory or streamed from a file).
  Transcript transcribe_windows(MelSource& mel, const TranscribeOptions& options, int threads) {
    const ScopedThreadCount thread_count(threads);
    if (options.vad) throw Error("voice activity detection runs before the log-mel windows, in transcribe() or transcribe_file()");
    return transcribe_mel(windows, model.tokenizer, model.weights.dims, mel, options);
  }
  // faster-whisper's transcribe(vad_filter=True) after get_speech_timestamps: the speech (mel, the
  // spans' samples end to end) transcribed as one recording, every time then mapped back to the
  // original audio (restore_speech_timestamps), also in what on_segment is given.
  Transcript transcribe_speech(MelSource& mel, const SpeechDetection& speech, const TranscribeOptions& options, int threads);

  // The VAD model for a name or path, loaded on first use and kept for the next transcription.
  const SileroVad& vad_model(const std::string& name_or_path) {
    const std::string path = resolve_vad_model_path(name_or_path, model_cache_dir());
    if (!vad || path != vad_path) {
      vad.reset();
      vad = std::make_unique<SileroVad>(path);
      vad_path = path;
    }
    return *vad;
  }

  const ModelImpl& model;
  std::unique_ptr<WindowEngine> engine;
  WindowHolder windows;
  std::unique_ptr<SileroVad> vad;
  std::string vad_path;
};

namespace {

void check_audio(std::span<const float> samples, int sample_rate) {
  if (sample_rate != kSampleRate)
    throw Error("audio must be 16000 Hz mono for Whisper, got " + std::to_string(sample_rate) +
                " Hz: resample it first (auris::load_audio does this for files)");
  if (samples.empty()) throw Error("the audio buffer is empty: there is nothing to transcribe");
  require_finite_samples(samples);
}

double samples_to_seconds(int64_t samples) { return static_cast<double>(samples) / kSampleRate; }

// With VAD: its options, checked with everything else before any work.
SpeechTimestampsOptions check_vad_options(const TranscribeOptions& options) {
  check_transcribe_options(options);
  const SpeechTimestampsOptions vad = speech_timestamps_options(*options.vad);
  const std::vector<double>& clips = options.clip_timestamps;
  if (!clips.empty() && !(clips.size() == 1 && clips[0] == 0.0))
    throw Error("voice activity detection chooses what to transcribe, so it cannot be combined with clip_timestamps: "
                "use one or the other");
  return vad;
}

// No speech found: an empty transcript of the whole recording.
Transcript no_speech(const SpeechDetection& speech, const TranscribeOptions& options, const Tokenizer& tokenizer) {
  Transcript t = empty_transcript(options, tokenizer);
  t.duration = samples_to_seconds(speech.num_samples);
  return t;
}

}  // namespace

Transcript Transcriber::State::transcribe_speech(MelSource& mel, const SpeechDetection& speech,
                                                const TranscribeOptions& options, int threads) {
  const SpeechTimeMap map(speech.spans);
  TranscribeOptions speech_options = options;
  speech_options.vad.reset();
  if (options.on_segment) {
    speech_options.on_segment = [&](const Segment& segment) {
      Segment restored = segment;
      restore_speech_timestamps(restored, map);
      options.on_segment(restored);
    };
  }
  const auto on_the_audio = [&](Transcript t) {
    for (Segment& segment : t.segments) restore_speech_timestamps(segment, map);
    t.duration = samples_to_seconds(speech.num_samples);
    t.duration_after_vad = samples_to_seconds(speech.speech_samples());
    return t;
  };
  try {
    return on_the_audio(transcribe_windows(mel, speech_options, threads));
  } catch (Cancelled& cancelled) {
    if (cancelled.partial) cancelled.partial = std::make_shared<const Transcript>(on_the_audio(*cancelled.partial));
    throw;
  }
}

Transcriber::Transcriber(std::shared_ptr<const Model> model)
    : model_(std::move(model)), state_(std::make_unique<State>(model_impl(*model_))) {}
Transcriber::~Transcriber() = default;

void Transcriber::set_threads(int threads) {
  check_thread_count(threads);
  threads_ = threads;
}

EngineCounters EngineAccess::counters(const Transcriber& transcriber) { return transcriber.state_->engine->counters(); }

void EngineAccess::set_ablations(Transcriber& transcriber, const EngineAblations& ablations) {
  transcriber.state_->engine->set_ablations(ablations);
}

DecodingResult Transcriber::decode(std::span<const float> samples, int sample_rate, const DecodingOptions& options) {
  check_audio(samples, sample_rate);
  const ScopedThreadCount thread_count(threads_);
  const ModelImpl& m = model_impl(*model_);
  DecodingTask task(m.tokenizer, m.weights.dims, options);  // validates options before any work
  // The first window exactly as transcribe() feeds it to decode(): its real frames, zero-padded.
  InMemoryMel mel(samples, m.weights.dims.n_mels);
  state_->windows.set_window(mel.window(0, std::min(kChunkFrames, mel.content_frames())));
  return task.run(*state_->engine);
}

std::map<std::string, float> Transcriber::detect_language(std::span<const float> samples, int sample_rate) {
  check_audio(samples, sample_rate);
  InMemoryMel mel(samples, model_impl(*model_).weights.dims.n_mels);
  return EngineAccess::detect_language(*this, mel, TranscribeOptions{}).probabilities;  // the first 30 s
}

LanguageDetection EngineAccess::detect_language(Transcriber& t, MelSource& mel, const TranscribeOptions& options,
                                                int first_frame) {
  const ScopedThreadCount thread_count(t.threads_);
  return detect_mel_language(t.state_->windows, model_impl(*t.model_).tokenizer, mel, options, first_frame);
}

Transcript EngineAccess::transcribe(Transcriber& t, MelSource& mel, const TranscribeOptions& options) {
  return t.state_->transcribe_windows(mel, options, t.threads_);
}

Transcript EngineAccess::transcribe_speech(Transcriber& t, MelSource* speech_mel, const SpeechDetection& speech,
                                           const TranscribeOptions& options) {
  check_vad_options(options);
  if (speech.spans.empty() || !speech_mel) return no_speech(speech, options, model_impl(*t.model_).tokenizer);
  return t.state_->transcribe_speech(*speech_mel, speech, options, t.threads_);
}

void validate(const VadParameters& vad) {
  speech_timestamps_options(vad);
  read_ggml_vad(resolve_vad_model_path(vad.model, model_cache_dir()));  // the whole file, every tensor checked
}

Transcript Transcriber::transcribe(std::span<const float> samples, int sample_rate, const TranscribeOptions& options) {
  check_audio(samples, sample_rate);
  const int n_mels = model_impl(*model_).weights.dims.n_mels;
  if (!options.vad) {
    InMemoryMel mel(samples, n_mels);
    return state_->transcribe_windows(mel, options, threads_);
  }
  const SpeechTimestampsOptions vad_options = check_vad_options(options);
  SpeechDetection speech;
  {
    const ScopedThreadCount thread_count(threads_);
    speech = detect_speech(state_->vad_model(options.vad->model), samples, vad_options);
  }
  if (speech.spans.empty()) return no_speech(speech, options, model_impl(*model_).tokenizer);
  InMemoryMel mel(collect_speech(samples, speech.spans), n_mels);
  return state_->transcribe_speech(mel, speech, options, threads_);
}

Transcript Transcriber::transcribe_file(const std::string& path, const TranscribeOptions& options) {
  const int n_mels = model_impl(*model_).weights.dims.n_mels;
  if (!options.vad) {
    StreamingMel mel(path, n_mels);
    if (mel.content_frames() == 0) require_a_frame(path, mel.num_samples());
    return state_->transcribe_windows(mel, options, threads_);
  }
  const SpeechTimestampsOptions vad_options = check_vad_options(options);
  auto recording = std::make_unique<AudioFileSource>(path);
  SpeechDetection speech;
  {
    const ScopedThreadCount thread_count(threads_);
    const SileroVad& vad = state_->vad_model(options.vad->model);
    const std::unique_ptr<SamplePass> pass = recording->open();
    speech = detect_speech(vad, *pass, vad_options);
  }
  if (speech.spans.empty()) return no_speech(speech, options, model_impl(*model_).tokenizer);
  // Only the speech's samples reach the log-mel, read from the file again (stdin: from its spool).
  StreamingMel mel(std::make_unique<SpeechOnlyAudio>(std::move(recording), speech.spans), n_mels);
  return state_->transcribe_speech(mel, speech, options, threads_);
}

}  // namespace auris
