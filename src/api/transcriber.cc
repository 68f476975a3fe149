#include <algorithm>
#include <cmath>

#include "api/model_impl.h"
#include "audio/mel.h"
#include "audio/mel_source.h"
#include "audio/streaming_mel.h"
#include "auris/error.h"
#include "auris/transcribe.h"
#include "decoding/decoding_task.h"
#include "decoding/detect_language.h"
#include "transcribe/window_segments.h"
#include "whisper/encoder.h"
#include "whisper/window_inference.h"

namespace auris {

// The session's engine state: workspaces and caches sized once, reused for every window.
struct Transcriber::State {
  explicit State(const Model::Impl& m) : model(m), encoder(m.weights), inference(m.weights) {}

  // Encodes a [n_mels x 3000] window and computes its cross-attention K/V, once per window.
  void set_window(const LogMel& window) {
    encoder.forward(window, encoder_out);
    inference.set_window(encoder_out.data());
    ++encoder_windows;
  }

  const Model::Impl& model;
  Encoder encoder;
  WindowInference inference;
  std::vector<float> encoder_out;
  long long encoder_windows = 0;
};

namespace {

constexpr double kSecondsPerFrame = static_cast<double>(kHopLength) / kSampleRate;

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

}  // namespace

Transcriber::Transcriber(std::shared_ptr<const Model> model)
    : model_(std::move(model)), state_(std::make_unique<State>(model_->impl())) {}
Transcriber::~Transcriber() = default;

EngineCounters Transcriber::counters() const {
  const WhisperModel& w = model_->impl().weights;
  EngineCounters c;
  c.encoder_windows = state_->encoder_windows;
  c.cross_kv_rows = w.cross_kv_all_layers.rows_multiplied();
  for (const DecoderBlock& b : w.decoder_blocks) {
    c.cross_query_rows += b.cross_query.rows_multiplied();
    c.self_qkv_rows += b.qkv.rows_multiplied();
  }
  return c;
}

DecodingResult Transcriber::decode(std::span<const float> samples, int sample_rate, const DecodingOptions& options) {
  check_audio(samples, sample_rate);
  const Model::Impl& m = model_->impl();
  DecodingTask task(m.tokenizer, m.weights.dims, options);  // validates options before any work
  // The first window exactly as transcribe() feeds it to decode(): its real frames, zero-padded.
  InMemoryMel mel(samples, m.weights.dims.n_mels);
  state_->set_window(mel.window(0, std::min(kChunkFrames, mel.content_frames())));
  return task.run(state_->inference);
}

std::map<std::string, float> Transcriber::detect_language(std::span<const float> samples, int sample_rate) {
  check_audio(samples, sample_rate);
  const Model::Impl& m = model_->impl();
  // As transcribe() detects: the first 30 s of the padded spectrogram.
  InMemoryMel mel(samples, m.weights.dims.n_mels);
  state_->set_window(mel.window(0, kChunkFrames));
  return auris::detect_language(state_->inference, m.tokenizer).probabilities;
}

Transcript Transcriber::transcribe(std::span<const float> samples, int sample_rate, const TranscribeOptions& options) {
  check_audio(samples, sample_rate);
  InMemoryMel mel(samples, model_->impl().weights.dims.n_mels);
  return transcribe_windows(mel, options);
}

Transcript Transcriber::transcribe_file(const std::string& path, const TranscribeOptions& options) {
  StreamingMel mel(path, model_->impl().weights.dims.n_mels);
  if (mel.content_frames() == 0) throw Error("'" + path + "' contains no audio samples");
  return transcribe_windows(mel, options);
}

Transcript Transcriber::transcribe_windows(MelSource& mel, const TranscribeOptions& options) {
  if (options.temperatures.empty()) throw Error("at least one decoding temperature is needed");
  const Model::Impl& m = model_->impl();
  const Tokenizer& tokenizer = m.tokenizer;
  if (mel.n_mels() != m.weights.dims.n_mels) throw Error("log-mel bins do not match the model");
  const int content_frames = mel.content_frames();
  if (mel.silent()) {  // digital silence: an empty transcript, where Whisper would hallucinate
    Transcript empty;
    empty.language = options.decoding.language.value_or(tokenizer.multilingual() ? "" : "en");
    return empty;
  }

  DecodingOptions decoding = options.decoding;
  Transcript transcript;
  if (!decoding.language) {
    if (!tokenizer.multilingual()) {
      decoding.language = "en";
    } else {
      state_->set_window(mel.window(0, kChunkFrames));
      decoding.language = auris::detect_language(state_->inference, tokenizer).code;
    }
  }
  transcript.language = *decoding.language;

  std::vector<int> all_tokens;
  if (options.initial_prompt) {
    std::string prompt = *options.initial_prompt;
    prompt.erase(0, prompt.find_first_not_of(" \t\n\r"));
    prompt.erase(prompt.find_last_not_of(" \t\n\r") + 1);
    all_tokens = tokenizer.encode(" " + prompt);
  }
  size_t prompt_reset_since = 0;

  int seek = 0;
  while (seek < content_frames) {
    const int segment_size = std::min(kChunkFrames, content_frames - seek);
    state_->set_window(mel.window(seek, segment_size));

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
      attempt.prompt = std::vector<int>(all_tokens.begin() + static_cast<long>(prompt_reset_since), all_tokens.end());
      DecodingTask task(tokenizer, m.weights.dims, attempt);
      result = task.run(state_->inference);  // the window's cross K/V are reused by every retry
      if (!needs_fallback(result, options)) break;
    }

    if (options.no_speech_threshold && result.no_speech_prob > *options.no_speech_threshold &&
        !(options.logprob_threshold && result.avg_logprob > *options.logprob_threshold)) {
      seek += segment_size;  // silence: skip the window
      if (options.on_progress)
        options.on_progress(std::min(seek, content_frames) * kSecondsPerFrame, content_frames * kSecondsPerFrame);
      continue;
    }

    WindowSplit split = split_window(result.tokens, tokenizer.timestamp_begin(), seek, segment_size);
    for (WindowSegment& ws : split.segments) {
      Segment seg;
      seg.id = static_cast<int>(transcript.segments.size());
      seg.seek = seek;
      seg.start = ws.start;
      seg.end = ws.end;
      std::vector<int> text_tokens;
      for (int t : ws.tokens)
        if (t < tokenizer.eot()) text_tokens.push_back(t);
      seg.text = tokenizer.decode(text_tokens);
      seg.tokens = std::move(ws.tokens);
      seg.temperature = result.temperature;
      seg.avg_logprob = result.avg_logprob;
      seg.compression_ratio = result.compression_ratio;
      seg.no_speech_prob = result.no_speech_prob;
      const bool blank = seg.text.find_first_not_of(" \t\n\r") == std::string::npos;
      if (seg.start == seg.end || blank) {  // instantaneous or textless segments carry nothing
        seg.text.clear();
        seg.tokens.clear();
      }
      all_tokens.insert(all_tokens.end(), seg.tokens.begin(), seg.tokens.end());
      if (options.on_segment) options.on_segment(seg);
      transcript.text += seg.text;
      transcript.segments.push_back(std::move(seg));
    }
    if (!options.condition_on_previous_text || result.temperature > 0.5) prompt_reset_since = all_tokens.size();
    seek += split.seek_advance;
    if (options.on_progress)
      options.on_progress(std::min(seek, content_frames) * kSecondsPerFrame, content_frames * kSecondsPerFrame);
  }
  return transcript;
}

}  // namespace auris
