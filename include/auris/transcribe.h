// Transcribing audio with a loaded model, as openai/whisper's transcribe(): 30-s windows decoded in
// turn, the seek position driven by the timestamp tokens, temperature fallback, the no-speech rule,
// the previous text as prompt, clips, and word timestamps with hallucination skipping.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "auris/audio.h"
#include "auris/decoding.h"
#include "auris/model.h"

namespace auris {

// openai's defaults: "'“¿([{- and "'.。,，!！?？:：”)]}、
inline constexpr const char* kDefaultPrependPunctuations = "\"'\xE2\x80\x9C\xC2\xBF([{-";
inline constexpr const char* kDefaultAppendPunctuations =
    "\"'.\xE3\x80\x82,\xEF\xBC\x8C!\xEF\xBC\x81?\xEF\xBC\x9F:\xEF\xBC\x9A\xE2\x80\x9D)]}\xE3\x80\x81";

// Voice activity detection before transcription, as faster-whisper's vad_filter: Silero VAD finds
// the speech, only the speech is transcribed (its spans end to end, as one recording), and every
// timestamp is mapped back to the original audio. The fields and defaults are faster-whisper's
// VadOptions (silero-vad's get_speech_timestamps parameters, in faster-whisper's units).
struct VadParameters {
  // A 32-ms window whose speech probability reaches this starts speech. 0 to 1.
  double threshold = 0.5;
  // In speech, a window below this is silence; unset: max(threshold - 0.15, 0.01). 0 to threshold.
  std::optional<double> neg_threshold;
  // Speech shorter than this is dropped. 0 to 3600000 ms.
  int min_speech_duration_ms = 0;
  // Speech longer than this is cut at its last silence of more than 98 ms (or where it reaches the
  // limit). Infinity (the default), or more than a window plus twice speech_pad_ms.
  double max_speech_duration_s = std::numeric_limits<double>::infinity();
  // Silence this long ends speech. 0 to 3600000 ms.
  int min_silence_duration_ms = 2000;
  // Kept on each side of the speech (less where two spans are closer). 0 to 3600000 ms.
  int speech_pad_ms = 400;
  // The VAD model: a name in the model cache (silero-vad, after `auris download silero-vad`) or the
  // path of a whisper.cpp ggml Silero VAD file (v5/v6).
  std::string model = "silero-vad";
};

// Checks the parameters and the model before any work: throws auris::Error naming a parameter out
// of range and its allowed range, or saying how to get a missing, truncated or corrupted model.
// transcribe() and transcribe_file() do the same; this lets a caller fail before loading Whisper.
void validate(const VadParameters& vad);

struct TranscribeOptions {
  // Per-window decoding: language, task, beam_size, best_of, patience, suppress_tokens, ...
  // (its temperature is ignored: `temperatures` below drives it).
  DecodingOptions decoding;
  // Tried in turn while the result fails the thresholds below (temperature fallback).
  std::vector<double> temperatures = {0.0, 0.2, 0.4, 0.6, 0.8, 1.0};
  std::optional<double> compression_ratio_threshold = 2.4;
  std::optional<double> logprob_threshold = -1.0;
  std::optional<double> no_speech_threshold = 0.6;
  bool condition_on_previous_text = true;
  // A window decoded above this temperature does not prompt the next (openai's 0.5; faster-whisper's
  // prompt_reset_on_temperature). -1000 to 1000.
  double prompt_reset_on_temperature = 0.5;
  // Language detection, where the language is unset and the model multilingual, as faster-whisper's:
  // the first 30-s window's language, unless it is no more probable than the threshold and more
  // windows may be tried: then the next windows are, up to language_detection_segments in all (1 to
  // 100); the first more probable than the threshold (0 to 1) decides, and if none is, the language
  // on top most often does, with its highest probability. With VAD the windows are the speech's.
  int language_detection_segments = 1;
  double language_detection_threshold = 0.5;
  static constexpr int kMostLanguageDetectionSegments = 100;
  // faster-whisper's multilingual mode (multilingual models): every window's language is detected
  // and the window decoded in it, for recordings that change language. Transcript::language stays
  // the one detected (or given) for the recording.
  bool multilingual = false;
  // The first window's prompt (custom vocabulary, spelling, style): text, encoded as " " + its
  // stripped text as openai does, or token ids, taken as they are (faster-whisper takes both).
  std::optional<TextOrTokens> initial_prompt;
  // Puts initial_prompt at the start of every window's prompt, not only the first; the previous
  // text fills what is left of the prompt's n_text_ctx / 2 - 1 tokens.
  bool carry_initial_prompt = false;

  // faster-whisper's hotwords: words (names, terms) at the start of every window's prompt, before
  // the previous text, which fills what is left of the prompt's n_text_ctx / 2 - 1 tokens (of the
  // hotwords themselves, the first ones that fit). Not with decoding.prefix, which starts every
  // window (faster-whisper drops its hotwords where there is a prefix).
  std::optional<std::string> hotwords;

  // Word-level timestamps from the cross-attention of the model's alignment heads and dynamic time
  // warping; fills Segment::words and refines segment starts and ends (openai's word_timestamps).
  bool word_timestamps = false;
  // With word_timestamps: marks merged into the next word / the previous word.
  std::string prepend_punctuations = kDefaultPrependPunctuations;
  std::string append_punctuations = kDefaultAppendPunctuations;
  // With word_timestamps: when a segment looks hallucinated (improbable, very short or very long
  // words) and silence longer than this many seconds surrounds it, skip the silence and drop it.
  std::optional<double> hallucination_silence_threshold;

  // auris addition: the window that reaches the end of the audio may not end with a segment that
  // closes more than half a second before that end (DecodingOptions::no_end_before). Whisper tends
  // to leave speech cut off by the end of the audio for a next window; a live stream's newest words
  // are that speech, and this transcribes them without the second window's encoder pass.
  bool transcribe_to_the_end = false;

  // Parts of the audio to transcribe, in seconds: start, end, start, end, ...; a missing last end
  // means the end of the audio. Empty: all of it. parse_clip_timestamps reads openai's "0,5.5,8"
  // form. Ends past the audio stop at its end (openai would loop forever there). Throws
  // auris::Error (from transcribe) for a negative or non-finite time or an end before its start.
  std::vector<double> clip_timestamps;
  // Set: transcribe only the speech that voice activity detection finds (see VadParameters). Cannot
  // be combined with clip_timestamps. Times in on_segment's segments are the original audio's;
  // on_progress counts the seconds of speech.
  std::optional<VadParameters> vad;
  // Called with each window's new segments as they are decided (for --verbose / streaming output).
  std::function<void(const struct Segment&)> on_segment;
  // Called after each window with the audio seconds done and in total (progress bars).
  std::function<void(double done_seconds, double total_seconds)> on_progress;
  // Either callback may throw auris::Cancelled (auris/error.h) to stop: the transcription ends there,
  // before the next window, and the exception leaves transcribe() / transcribe_file(). The
  // Transcriber can transcribe again. Callbacks run on the thread that called transcribe().
};

struct Word {
  std::string word;  // with its leading space, as openai's word timestamps
  double start = 0.0;
  double end = 0.0;
  double probability = 0.0;
};

struct Segment {
  int id = 0;
  int seek = 0;  // the window's start, in mel frames (10 ms)
  double start = 0.0;
  double end = 0.0;
  std::string text;
  std::vector<int> tokens;
  double temperature = 0.0;
  double avg_logprob = 0.0;
  double compression_ratio = 0.0;
  double no_speech_prob = 0.0;
  std::vector<Word> words;  // filled when word timestamps are requested
};

struct Transcript {
  std::string text;
  std::string language;
  // The detected language's probability; 1 where the language was given or the model is
  // English-only (faster-whisper's TranscriptionInfo.language_probability).
  double language_probability = 0.0;
  std::vector<Segment> segments;
  // Transcribed with word timestamps: every segment's words were computed (and may be empty).
  bool word_timestamps = false;
  // Seconds of the audio, and of the part transcribed: the speech alone with TranscribeOptions::vad
  // (0 when none was found), else the same (faster-whisper's TranscriptionInfo fields).
  double duration = 0.0;
  double duration_after_vad = 0.0;
};

// openai's clip_timestamps string: comma-separated seconds "start,end,start,...", "" for none.
// Throws auris::Error naming the item that is not a number.
std::vector<double> parse_clip_timestamps(std::string_view text);

// openai's schedule of fallback temperatures, tuple(np.arange(start, 1.0 + 1e-6, increment)), for
// TranscribeOptions::temperatures: start alone where increment is 0. Throws auris::Error for a
// start or increment that is negative or not a number, a start above 1 with an increment, or a
// schedule of more than kMaxFallbackTemperatures.
constexpr int kMaxFallbackTemperatures = 100;
std::vector<double> fallback_temperatures(double start, double increment);

// One transcription session: owns the workspaces and static caches, reused for every window and
// file. Not thread-safe; use one Transcriber per thread. Transcribers on different threads can share
// one Model (its weights are read-only; src/api/transcriber_concurrency_test.cc runs this under TSan).
class Transcriber {
 public:
  explicit Transcriber(std::shared_ptr<const Model> model);
  ~Transcriber();

  // samples: mono PCM at sample_rate, which must be kSampleRate (16000; load_audio reads files into
  // that). With VAD, the speech is copied out of samples and transcribed.
  // Throws auris::Error for an empty buffer, another rate, or invalid options.
  Transcript transcribe(std::span<const float> samples, int sample_rate, const TranscribeOptions& options = {});

  // Transcribes an audio file ("-" = stdin) of any length with bounded memory: the log-mel of up to
  // about 35 minutes is kept from one reading of the audio; longer audio is decoded again and its
  // log-mel streamed window by window, never held whole. With VAD, a first reading finds the speech
  // and the log-mel's readings take only the speech's samples: the same bounds. Throws auris::Error
  // for unreadable or empty audio.
  Transcript transcribe_file(const std::string& path, const TranscribeOptions& options = {});

  // Decodes the first 30 s as one window, as openai/whisper's decode() on that window's log-mel.
  DecodingResult decode(std::span<const float> samples, int sample_rate, const DecodingOptions& options = {});

  // Probability of each language code for the first 30 s (multilingual models only).
  std::map<std::string, float> detect_language(std::span<const float> samples, int sample_rate);

  // CPU threads this Transcriber's calls use (0, the default: OpenMP's count for the calling
  // thread, all cores unless OMP_NUM_THREADS says otherwise; at most 1024). Other Transcribers are not affected.
  void set_threads(int threads);
  int threads() const { return threads_; }

  const Model& model() const { return *model_; }

 private:
  friend struct EngineAccess;  // the engine's counters, for tests and benchmarks (src/api/engine_access.h)
  struct State;
  std::shared_ptr<const Model> model_;
  std::unique_ptr<State> state_;
  int threads_ = 0;
};

}  // namespace auris
