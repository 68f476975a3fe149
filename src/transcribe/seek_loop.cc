#include "transcribe/seek_loop.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "audio/mel.h"
#include "auris/error.h"
#include "decoding/decoding_task.h"
#include "decoding/detect_language.h"
#include "decoding/strip_whitespace.h"
#include "transcribe/clip_timestamps.h"
#include "transcribe/silence_skipping.h"
#include "transcribe/temperature_fallback.h"
#include "transcribe/window_segments.h"
#include "transcribe/word_timestamps.h"
#include "util/number_text.h"

namespace auris {
namespace {

// TranscribeOptions::transcribe_to_the_end: the last window may still end this close to the audio's
// end, where a word may be too short a fragment to transcribe.
constexpr double kUnheardTail = 0.5;

double frames_to_seconds(int frames) { return static_cast<double>(frames) * kHopLength / kSampleRate; }
double samples_to_seconds(int64_t samples) { return static_cast<double>(samples) / kSampleRate; }

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

void WindowHolder::set_window(const LogMel& window) {
  if (window.n_mels == current_.n_mels && window.n_frames == current_.n_frames && window.data == current_.data) {
    engine_.reset();
    return;
  }
  current_ = LogMel();  // unknown until the engine has taken the new one
  engine_.set_window(window);
  current_ = window;
}

void check_transcribe_options(const TranscribeOptions& options) {
  if (options.temperatures.empty())
    throw Error("at least one decoding temperature is needed (openai's schedule: fallback_temperatures(0, 0.2))");
  for (double t : options.temperatures)
    if (!std::isfinite(t) || t < 0) throw Error("a decoding temperature must be 0 (greedy) or more, got " + number_text(t));
  auto check_finite = [](const std::optional<double>& threshold, const char* name) {
    if (threshold && !std::isfinite(*threshold))
      throw Error(std::string(name) + " must be a number (or unset), got " + number_text(*threshold));
  };
  check_finite(options.compression_ratio_threshold, "compression_ratio_threshold");
  check_finite(options.logprob_threshold, "logprob_threshold");
  check_finite(options.no_speech_threshold, "no_speech_threshold");
  if (options.hallucination_silence_threshold &&
      !(std::isfinite(*options.hallucination_silence_threshold) && *options.hallucination_silence_threshold > 0))
    throw Error("hallucination_silence_threshold must be a positive number of seconds, got " +
                number_text(*options.hallucination_silence_threshold));
  // faster-whisper drops its hotwords where a prefix is given; openai's prefix starts every window.
  if (options.hotwords && !strip_whitespace(*options.hotwords).empty() && present(options.decoding.prefix))
    throw Error("hotwords are not used where a prefix is given, and the prefix starts every window: give one or the other");
  if (!(options.prompt_reset_on_temperature >= -1000 && options.prompt_reset_on_temperature <= 1000))
    throw Error("prompt_reset_on_temperature must be a temperature from -1000 to 1000 (openai's is 0.5; below 0 "
                "every window resets the prompt), got " + number_text(options.prompt_reset_on_temperature));
  if (options.language_detection_segments < 1 || options.language_detection_segments > TranscribeOptions::kMostLanguageDetectionSegments)
    throw Error("language_detection_segments must be 1 to " + std::to_string(TranscribeOptions::kMostLanguageDetectionSegments) +
                " windows of 30 s, got " + std::to_string(options.language_detection_segments));
  if (!(options.language_detection_threshold >= 0 && options.language_detection_threshold <= 1))
    throw Error("language_detection_threshold must be a probability from 0 to 1, got " +
                number_text(options.language_detection_threshold));
}

std::vector<int> prompt_tokens(const Tokenizer& tokenizer, const TextOrTokens& prompt) {
  if (const auto* text = std::get_if<std::string>(&prompt)) {
    return tokenizer.encode(spaced_for_prompt(*text));
  }
  const auto& tokens = std::get<std::vector<int>>(prompt);
  // Special tokens would end or restart the prompt's text; the decoder reads text tokens there.
  for (int t : tokens)
    if (t < 0 || t >= tokenizer.eot())
      throw Error("initial prompt token " + std::to_string(t) + " is not a text token (0.." +
                  std::to_string(tokenizer.eot() - 1) + ")");
  return tokens;
}

Transcript empty_transcript(const TranscribeOptions& options, const Tokenizer& tokenizer) {
  Transcript empty;
  empty.language = options.decoding.language.value_or(tokenizer.multilingual() ? "" : "en");
  empty.word_timestamps = options.word_timestamps;
  return empty;
}

LanguageDetection detect_mel_language(WindowHolder& windows, const Tokenizer& tokenizer, MelSource& mel,
                                      const TranscribeOptions& options, int first_frame) {
  if (first_frame < 0 || first_frame >= mel.content_frames()) first_frame = 0;
  // faster-whisper's windows for detection: the spectrogram cut every 30 s, each padded.
  const int available = std::max(1, (mel.content_frames() - first_frame + kChunkFrames - 1) / kChunkFrames);
  return detect_language(windows.engine(), tokenizer, std::min(options.language_detection_segments, available),
                         options.language_detection_threshold,
                         [&](int i) { windows.set_window(mel.window(first_frame + i * kChunkFrames, kChunkFrames)); });
}

Transcript transcribe_mel(WindowHolder& windows, const Tokenizer& tokenizer, const ModelDims& dims, MelSource& mel,
                          const TranscribeOptions& options, int no_window_after) {
  check_transcribe_options(options);
  if (mel.n_mels() != dims.n_mels) throw Error("log-mel bins do not match the model");
  const std::vector<int> initial_prompt_tokens =
      options.initial_prompt ? prompt_tokens(tokenizer, *options.initial_prompt) : std::vector<int>();
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
  transcript.language_probability = 1.0;
  if (!decoding.language) {
    if (!tokenizer.multilingual()) {
      decoding.language = "en";
    } else {
      const LanguageDetection detection = detect_mel_language(windows, tokenizer, mel, options);
      decoding.language = detection.code;
      transcript.language_probability = detection.probability;
    }
  }
  transcript.language = *decoding.language;

  const auto aligner_for = [&](const std::string& language_option) {
    const Task task = decoding.task == "translate" ? Task::kTranslate : Task::kTranscribe;
    // openai's English-only tokenizer has no language, so its words split on spaces.
    std::string language;
    if (tokenizer.multilingual())
      if (const std::optional<int> token = tokenizer.language_token(language_option)) language = tokenizer.language_code(*token);
    return WordAligner{windows.engine(), tokenizer, language, tokenizer.sot_sequence(language_option, task),
                       dims.alignment_heads};
  };
  std::optional<WordAligner> aligner;
  if (options.word_timestamps) {
    if (dims.alignment_heads.empty())
      throw Error("this model has no alignment heads, so word timestamps cannot be computed; transcribe without them");
    aligner.emplace(aligner_for(*decoding.language));
  }

  std::vector<int> all_tokens = initial_prompt_tokens;
  const long remaining_prompt_length =
      dims.n_text_ctx / 2 - 1 - static_cast<long>(initial_prompt_tokens.size());
  size_t prompt_reset_since = 0;
  double last_speech_timestamp = 0.0;
  const long most_prompt_tokens = dims.n_text_ctx / 2 - 1;
  std::vector<int> hotword_tokens;
  if (options.hotwords && !strip_whitespace(*options.hotwords).empty()) {
    hotword_tokens = tokenizer.encode(spaced_for_prompt(*options.hotwords));
    if (static_cast<long>(hotword_tokens.size()) > most_prompt_tokens) hotword_tokens.resize(static_cast<size_t>(most_prompt_tokens));
  }

  // A callback's Cancelled leaves with what was transcribed so far.
  const auto so_far = [&] {
    Transcript partial = transcript;
    partial.text = tokenizer.decode(std::span<const int>(all_tokens).subspan(initial_prompt_tokens.size()));
    return std::make_shared<const Transcript>(std::move(partial));
  };
  try {
    size_t clip_index = 0;
    int seek = clips[0].first;
    while (clip_index < clips.size()) {
      const auto [clip_start, clip_end] = clips[clip_index];
      if (seek < clip_start) seek = clip_start;
      if (seek > no_window_after) break;
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
      windows.set_window(mel.window(seek, window.segment_size));
      if (options.multilingual && tokenizer.multilingual()) {
        // faster-whisper's multilingual mode: each window is decoded in the language it is heard in.
        const LanguageDetection heard = detect_language(windows.engine(), tokenizer);
        if (heard.code != *decoding.language) {
          decoding.language = heard.code;
          if (aligner) aligner.emplace(aligner_for(heard.code));
        }
      }

      std::vector<int> prompt;
      if (options.carry_initial_prompt) {
        const size_t ignored = std::max(initial_prompt_tokens.size(), prompt_reset_since);
        prompt = initial_prompt_tokens;
        const std::vector<int> rest = python_tail(all_tokens, ignored, remaining_prompt_length);
        prompt.insert(prompt.end(), rest.begin(), rest.end());
      } else {
        prompt.assign(all_tokens.begin() + static_cast<long>(prompt_reset_since), all_tokens.end());
      }
      if (!hotword_tokens.empty()) {
        std::vector<int> previous = python_tail(prompt, 0, most_prompt_tokens - static_cast<long>(hotword_tokens.size()));
        if (static_cast<long>(hotword_tokens.size()) == most_prompt_tokens) previous.clear();  // a length of 0 is all of it
        prompt = hotword_tokens;
        prompt.insert(prompt.end(), previous.begin(), previous.end());
      }

      if (options.transcribe_to_the_end) {
        const bool reaches_the_end = seek + window.segment_size >= std::min(content_frames, clip_end);
        decoding.no_end_before = reaches_the_end ? std::optional<double>(window.segment_duration - kUnheardTail)
                                                 : options.decoding.no_end_before;
      }
      const DecodingResult result =
          decode_with_fallback(windows.engine(), tokenizer, dims, decoding, options, prompt);
      decoding.forced_tokens.clear();  // they are the first window's

      if (is_silence(result, options)) {
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
      if (!options.condition_on_previous_text || result.temperature > options.prompt_reset_on_temperature)
        prompt_reset_since = all_tokens.size();
      report_progress(seek);
    }
  } catch (Cancelled& cancelled) {
    cancelled.partial = so_far();
    throw;
  }
  transcript.text = tokenizer.decode(std::span<const int>(all_tokens).subspan(initial_prompt_tokens.size()));
  return transcript;
}

}  // namespace auris
