#include <algorithm>
#include <cmath>

#include "api/model_impl.h"
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
#include "transcribe/speech_only_audio.h"
#include "transcribe/vad_filter.h"
#include "transcribe/window_segments.h"
#include "transcribe/word_timestamps.h"
#include "util/thread_count.h"
#include "vad/ggml_vad_file.h"
#include "vad/silero_vad.h"
#include "vad/speech_chunks.h"
#include "whisper/window_engine.h"

namespace auris {

// The session's engine: workspaces and caches sized once, reused for every window.
struct Transcriber::State {
  explicit State(const Model::Impl& m) : engine(make_window_engine(m)) {}

  // The same spectrogram again (language detection, then the first window of a recording longer
  // than 30 s) keeps the engine's encoder output and cross K/V: only the decoder starts over.
  void set_window(const LogMel& window) {
    if (window.n_mels == current_window.n_mels && window.n_frames == current_window.n_frames &&
        window.data == current_window.data) {
      engine->reset();
      return;
    }
    current_window = LogMel();  // unknown until the engine has taken the new one
    engine->set_window(window);
    current_window = window;
  }

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

  std::unique_ptr<WindowEngine> engine;
  LogMel current_window;  // what the engine holds
  std::unique_ptr<SileroVad> vad;
  std::string vad_path;
};

namespace {

void check_audio(std::span<const float> samples, int sample_rate) {
  if (sample_rate != kSampleRate)
    throw Error("audio must be 16000 Hz mono for Whisper, got " + std::to_string(sample_rate) +
                " Hz: resample it first (auris::load_audio does this for files)");
  if (samples.empty()) throw Error("the audio buffer is empty: there is nothing to transcribe");
}

bool needs_fallback(const DecodingResult& r, const TranscribeOptions& o) {
  bool fallback = false;
  if (o.compression_ratio_threshold && r.compression_ratio > *o.compression_ratio_threshold) fallback = true;
  if (o.logprob_threshold && r.avg_logprob < *o.logprob_threshold) fallback = true;
  // Silence: the no-speech rule will skip the window, so retrying at a higher temperature is pointless.
  if (o.no_speech_threshold && r.no_speech_prob > *o.no_speech_threshold && o.logprob_threshold &&
      r.avg_logprob < *o.logprob_threshold)
    fallback = false;
  return fallback;
}

double frames_to_seconds(int frames) { return static_cast<double>(frames) * kHopLength / kSampleRate; }
double samples_to_seconds(int64_t samples) { return static_cast<double>(samples) / kSampleRate; }

// The options the seek loop checks, checked before any other work (such as a VAD pass).
void check_options(const TranscribeOptions& options) {
  if (options.temperatures.empty()) throw Error("at least one decoding temperature is needed");
  if (options.hallucination_silence_threshold && !std::isfinite(*options.hallucination_silence_threshold))
    throw Error("hallucination_silence_threshold must be a finite number of seconds");
}

// With VAD: its options, checked with everything else before any work.
SpeechTimestampsOptions check_vad_options(const TranscribeOptions& options) {
  check_options(options);
  const SpeechTimestampsOptions vad = speech_timestamps_options(*options.vad);
  const std::vector<double>& clips = options.clip_timestamps;
  if (!clips.empty() && !(clips.size() == 1 && clips[0] == 0.0))
    throw Error("voice activity detection chooses what to transcribe, so it cannot be combined with clip_timestamps: "
                "use one or the other");
  return vad;
}

// Nothing to transcribe (digital silence, or no speech found): no segments.
Transcript empty_transcript(const TranscribeOptions& options, const Tokenizer& tokenizer) {
  Transcript empty;
  empty.language = options.decoding.language.value_or(tokenizer.multilingual() ? "" : "en");
  empty.word_timestamps = options.word_timestamps;
  return empty;
}

// faster-whisper's transcribe(vad_filter=True) after get_speech_timestamps: the speech (mel, the
// spans' samples end to end) transcribed as one recording, every time then mapped back to the
// original audio (restore_speech_timestamps), also in what on_segment is given.
Transcript transcribe_speech(Transcriber& transcriber, MelSource& mel, const SpeechDetection& speech,
                             const TranscribeOptions& options) {
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
  Transcript t = transcriber.transcribe_windows(mel, speech_options);
  for (Segment& segment : t.segments) restore_speech_timestamps(segment, map);
  t.duration = samples_to_seconds(speech.num_samples);
  t.duration_after_vad = samples_to_seconds(speech.speech_samples());
  return t;
}

// No speech found: an empty transcript of the whole recording.
Transcript no_speech(const SpeechDetection& speech, const TranscribeOptions& options, const Tokenizer& tokenizer) {
  Transcript t = empty_transcript(options, tokenizer);
  t.duration = samples_to_seconds(speech.num_samples);
  return t;
}

// Python's tokens[start:][-length:]: the last `length` items when length > 0, but all of them for
// 0 and all but the first -length for negative lengths (a long carried initial prompt).
std::vector<int> python_tail(const std::vector<int>& tokens, size_t start, long length) {
  const size_t n = tokens.size() > start ? tokens.size() - start : 0;
  size_t skip = 0;
  if (length > 0) skip = n > static_cast<size_t>(length) ? n - static_cast<size_t>(length) : 0;
  if (length < 0) skip = std::min(n, static_cast<size_t>(-length));
  return std::vector<int>(tokens.end() - static_cast<long>(n - skip), tokens.end());
}

// openai can leave seek where the window started (a segment closing at <|0.00|>, a word ending
// within 5 ms of the window start) and then decodes the same window forever; auris moves on.
int make_progress(int seek, const WindowPosition& window) {
  return seek > window.previous_seek ? seek : window.previous_seek + window.segment_size;
}

}  // namespace

Transcriber::Transcriber(std::shared_ptr<const Model> model)
    : model_(std::move(model)), state_(std::make_unique<State>(model_->impl())) {}
Transcriber::~Transcriber() = default;

void Transcriber::set_threads(int threads) {
  if (threads < 0) throw Error("the thread count must be 0 (all cores) or more, got " + std::to_string(threads));
  threads_ = threads;
}

EngineCounters Transcriber::counters() const { return state_->engine->counters(); }

void Transcriber::set_ablations(const EngineAblations& ablations) { state_->engine->set_ablations(ablations); }

DecodingResult Transcriber::decode(std::span<const float> samples, int sample_rate, const DecodingOptions& options) {
  check_audio(samples, sample_rate);
  const ScopedThreadCount thread_count(threads_);
  const Model::Impl& m = model_->impl();
  DecodingTask task(m.tokenizer, m.weights.dims, options);  // validates options before any work
  // The first window exactly as transcribe() feeds it to decode(): its real frames, zero-padded.
  InMemoryMel mel(samples, m.weights.dims.n_mels);
  state_->set_window(mel.window(0, std::min(kChunkFrames, mel.content_frames())));
  return task.run(*state_->engine);
}

std::map<std::string, float> Transcriber::detect_language(std::span<const float> samples, int sample_rate) {
  check_audio(samples, sample_rate);
  const ScopedThreadCount thread_count(threads_);
  const Model::Impl& m = model_->impl();
  // As transcribe() detects: the first 30 s of the padded spectrogram.
  InMemoryMel mel(samples, m.weights.dims.n_mels);
  state_->set_window(mel.window(0, kChunkFrames));
  return auris::detect_language(*state_->engine, m.tokenizer).probabilities;
}

void validate(const VadParameters& vad) {
  speech_timestamps_options(vad);
  read_ggml_vad(resolve_vad_model_path(vad.model, model_cache_dir()));  // the whole file, every tensor checked
}

Transcript Transcriber::transcribe(std::span<const float> samples, int sample_rate, const TranscribeOptions& options) {
  check_audio(samples, sample_rate);
  const int n_mels = model_->impl().weights.dims.n_mels;
  if (!options.vad) {
    InMemoryMel mel(samples, n_mels);
    return transcribe_windows(mel, options);
  }
  const SpeechTimestampsOptions vad_options = check_vad_options(options);
  SpeechDetection speech;
  {
    const ScopedThreadCount thread_count(threads_);
    speech = detect_speech(state_->vad_model(options.vad->model), samples, vad_options);
  }
  if (speech.spans.empty()) return no_speech(speech, options, model_->impl().tokenizer);
  InMemoryMel mel(collect_speech(samples, speech.spans), n_mels);
  return transcribe_speech(*this, mel, speech, options);
}

Transcript Transcriber::transcribe_file(const std::string& path, const TranscribeOptions& options) {
  const int n_mels = model_->impl().weights.dims.n_mels;
  if (!options.vad) {
    StreamingMel mel(path, n_mels);
    if (mel.content_frames() == 0) throw Error("'" + path + "' contains no audio samples");
    return transcribe_windows(mel, options);
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
  if (speech.spans.empty()) return no_speech(speech, options, model_->impl().tokenizer);
  // Only the speech's samples reach the log-mel, read from the file again (stdin: from its spool).
  StreamingMel mel(std::make_unique<SpeechOnlyAudio>(std::move(recording), speech.spans), n_mels);
  return transcribe_speech(*this, mel, speech, options);
}

Transcript Transcriber::transcribe_windows(MelSource& mel, const TranscribeOptions& options) {
  const ScopedThreadCount thread_count(threads_);
  check_options(options);
  if (options.vad)
    throw Error("transcribe_windows() transcribes the log-mel it is given: voice activity detection needs transcribe() "
                "or transcribe_file()");
  const Model::Impl& m = model_->impl();
  const Tokenizer& tokenizer = m.tokenizer;
  if (mel.n_mels() != m.weights.dims.n_mels) throw Error("log-mel bins do not match the model");
  const int content_frames = mel.content_frames();
  const double content_duration = frames_to_seconds(content_frames);
  const std::vector<std::pair<int, int>> clips = seek_clips(options.clip_timestamps, content_frames);
  const double duration = samples_to_seconds(mel.num_samples());
  if (mel.silent()) {  // digital silence: an empty transcript, where Whisper would hallucinate
    Transcript empty = empty_transcript(options, tokenizer);
    empty.duration = empty.duration_after_vad = duration;
    return empty;
  }
  auto report_progress = [&](int frames_done) {
    if (options.on_progress)
      options.on_progress(frames_to_seconds(std::min(frames_done, content_frames)), content_duration);
  };

  DecodingOptions decoding = options.decoding;
  Transcript transcript;
  transcript.word_timestamps = options.word_timestamps;
  transcript.duration = transcript.duration_after_vad = duration;
  if (!decoding.language) {
    if (!tokenizer.multilingual()) {
      decoding.language = "en";
    } else {
      state_->set_window(mel.window(0, kChunkFrames));
      decoding.language = auris::detect_language(*state_->engine, tokenizer).code;
    }
  }
  transcript.language = *decoding.language;

  std::optional<WordAligner> aligner;
  if (options.word_timestamps) {
    if (m.weights.dims.alignment_heads.empty())
      throw Error("this model has no alignment heads, so word timestamps cannot be computed; transcribe without them");
    const Task task = decoding.task == "translate" ? Task::kTranslate : Task::kTranscribe;
    // openai's English-only tokenizer has no language, so its words split on spaces.
    std::string language;
    if (tokenizer.multilingual())
      if (const std::optional<int> token = tokenizer.language_token(*decoding.language)) language = tokenizer.language_code(*token);
    aligner.emplace(WordAligner{*state_->engine, tokenizer, language, tokenizer.sot_sequence(decoding.language, task),
                                m.weights.dims.alignment_heads});
  }

  std::vector<int> initial_prompt_tokens;
  if (options.initial_prompt) initial_prompt_tokens = tokenizer.encode(" " + strip_whitespace(*options.initial_prompt));
  std::vector<int> all_tokens = initial_prompt_tokens;
  const long remaining_prompt_length =
      m.weights.dims.n_text_ctx / 2 - 1 - static_cast<long>(initial_prompt_tokens.size());
  size_t prompt_reset_since = 0;
  double last_speech_timestamp = 0.0;

  size_t clip_index = 0;
  int seek = clips[0].first;
  while (clip_index < clips.size()) {
    const auto [clip_start, clip_end] = clips[clip_index];
    if (seek < clip_start) seek = clip_start;
    if (seek >= clip_end) {
      if (++clip_index < clips.size()) seek = clips[clip_index].first;
      continue;
    }
    WindowPosition window;
    window.previous_seek = seek;
    window.segment_size = std::min({kChunkFrames, content_frames - seek, clip_end - seek});
    window.time_offset = frames_to_seconds(seek);
    window.window_end_time = frames_to_seconds(seek + kChunkFrames);
    window.segment_duration = frames_to_seconds(window.segment_size);
    window.content_duration = content_duration;
    window.content_frames = content_frames;
    state_->set_window(mel.window(seek, window.segment_size));

    std::vector<int> prompt;
    if (options.carry_initial_prompt) {
      const size_t ignored = std::max(initial_prompt_tokens.size(), prompt_reset_since);
      prompt = initial_prompt_tokens;
      const std::vector<int> rest = python_tail(all_tokens, ignored, remaining_prompt_length);
      prompt.insert(prompt.end(), rest.begin(), rest.end());
    } else {
      prompt.assign(all_tokens.begin() + static_cast<long>(prompt_reset_since), all_tokens.end());
    }

    DecodingResult result;
    for (double temperature : options.temperatures) {
      DecodingOptions attempt = decoding;
      attempt.temperature = temperature;
      if (temperature > 0) {
        attempt.beam_size.reset();
        attempt.patience.reset();
      } else {
        attempt.best_of.reset();
      }
      attempt.prompt = prompt;
      DecodingTask task(tokenizer, m.weights.dims, attempt);
      result = task.run(*state_->engine);  // the window's cross K/V are reused by every retry
      if (!needs_fallback(result, options)) break;
    }

    if (options.no_speech_threshold && result.no_speech_prob > *options.no_speech_threshold &&
        !(options.logprob_threshold && result.avg_logprob > *options.logprob_threshold)) {
      seek += window.segment_size;  // silence: skip the window
      report_progress(seek);
      continue;
    }

    WindowSplit split = split_window(result.tokens, tokenizer.timestamp_begin(), seek, window.segment_size);
    window.single_timestamp_ending = split.single_timestamp_ending;
    std::vector<Segment> segments;
    for (WindowSegment& ws : split.segments) {
      Segment seg;
      seg.seek = seek;
      seg.start = ws.start;
      seg.end = ws.end;
      seg.text = tokenizer.decode(text_tokens_of(ws.tokens, tokenizer.eot()));
      seg.tokens = std::move(ws.tokens);
      seg.temperature = result.temperature;
      seg.avg_logprob = result.avg_logprob;
      seg.compression_ratio = result.compression_ratio;
      seg.no_speech_prob = result.no_speech_prob;
      segments.push_back(std::move(seg));
    }
    seek += split.seek_advance;

    if (aligner) {
      add_word_timestamps(segments, *aligner, window.segment_size, options.prepend_punctuations,
                          options.append_punctuations, last_speech_timestamp);
      const SeekDecision next = seek_after_word_timestamps(segments, window, seek, options.hallucination_silence_threshold,
                                                           last_speech_timestamp);
      seek = make_progress(next.seek, window);
      if (next.drop_window) continue;  // leading silence before a likely hallucination: retry after it
      if (const std::optional<double> end = last_end(segments)) last_speech_timestamp = *end;
    }
    seek = make_progress(seek, window);

    for (Segment& seg : segments) {
      // Instantaneous or textless segments carry nothing.
      if (seg.start == seg.end || strip_whitespace(seg.text).empty()) {
        seg.text.clear();
        seg.tokens.clear();
        seg.words.clear();
      }
      seg.id = static_cast<int>(transcript.segments.size());
      all_tokens.insert(all_tokens.end(), seg.tokens.begin(), seg.tokens.end());
      if (options.on_segment) options.on_segment(seg);
      transcript.segments.push_back(std::move(seg));
    }
    // Do not feed the prompt tokens if a high temperature was used.
    if (!options.condition_on_previous_text || result.temperature > 0.5) prompt_reset_since = all_tokens.size();
    report_progress(seek);
  }
  transcript.text = tokenizer.decode(std::span<const int>(all_tokens).subspan(initial_prompt_tokens.size()));
  return transcript;
}

}  // namespace auris
