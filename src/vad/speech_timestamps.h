// Speech spans from Silero VAD's window probabilities, exactly as get_speech_timestamps of the
// silero-vad package (6.2.0) computes them, in samples: speech starts at a window whose probability
// reaches `threshold` and ends once the probability has stayed below `neg_threshold` for
// min_silence_duration_ms; speech longer than max_speech_duration_s is cut at a silence inside it
// (or, without one, at the current window); short speech is dropped, and what is left is padded.
// faster-whisper's get_speech_timestamps is the same computation with the legacy cut (at the last
// silence) and, when the audio is a whole number of windows, one more window of zeros.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace auris {

// get_speech_timestamps's options, with silero-vad 6.2.0's defaults (16 kHz only).
struct SpeechTimestampsOptions {
  double threshold = 0.5;                // a window with at least this probability is speech
  std::optional<double> neg_threshold;   // in speech, below this is silence; default max(threshold - 0.15, 0.01)
  int min_speech_duration_ms = 250;      // speech ended by silence is dropped unless longer
  double max_speech_duration_s = std::numeric_limits<double>::infinity();  // longer speech is cut
  int min_silence_duration_ms = 100;     // silence this long ends speech
  int speech_pad_ms = 30;                // added on each side of a span (less where spans are close)
  int min_silence_at_max_speech_ms = 98;  // only a longer silence may take a max-duration cut
  // Cut overlong speech at its longest silence (silero-vad's default); false: at the last one, as
  // silero's use_max_poss_sil_at_max_speech=False and faster-whisper do.
  bool cut_at_longest_silence = true;
  // faster-whisper pads the audio with np.pad(audio, (0, 512 - n % 512)): a whole window of zeros
  // more when n is a multiple of 512. See vad_window_count().
  bool faster_whisper_windows = false;

  // faster-whisper's VadOptions() (WhisperModel.transcribe(vad_filter=True)): threshold 0.5,
  // min_speech 0 ms, min_silence 2000 ms, speech_pad 400 ms, no max, its cut and windows.
  static SpeechTimestampsOptions faster_whisper();
  // What faster-whisper's BatchedInferencePipeline uses when not given VAD options: the above with
  // max_speech_duration_s = its 30 s chunk length and min_silence 160 ms.
  static SpeechTimestampsOptions faster_whisper_batched();
};

// Throws auris::Error naming the option and its allowed range when one is out of it.
void validate(const SpeechTimestampsOptions& options);

// How many 512-sample windows (probabilities) the reference evaluates for num_samples of audio:
// ceil(n / 512), or n / 512 + 1 with faster_whisper_windows.
int64_t vad_window_count(int64_t num_samples, const SpeechTimestampsOptions& options);

struct SpeechSpan {
  int64_t start = 0, end = 0;  // samples of the 16 kHz audio, [start, end)
  bool operator==(const SpeechSpan&) const = default;
};

// The speech of num_samples of audio whose window probabilities are given (one per window, as many
// as vad_window_count() says; throws auris::Error otherwise or for invalid options).
std::vector<SpeechSpan> speech_timestamps(std::span<const float> probabilities, int64_t num_samples,
                                          const SpeechTimestampsOptions& options = {});

}  // namespace auris
