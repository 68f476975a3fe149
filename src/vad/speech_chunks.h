// What transcription does with the speech spans, as faster-whisper does it (faster_whisper/vad.py):
//  - collect_speech(): the spans' samples end to end, the audio that is transcribed
//    (collect_chunks without a max_duration, WhisperModel.transcribe(vad_filter=True));
//  - group_speech(): the spans in order, grouped into units of at most max_duration_s of speech
//    each, one unit per batch item (collect_chunks(max_duration=30), BatchedInferencePipeline);
//  - SpeechTimeMap: a time in the collected audio back on the original timeline (SpeechTimestampsMap),
//    for segment and word timestamps.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "vad/speech_timestamps.h"

namespace auris {

// The samples of every span, in order, end to end.
std::vector<float> collect_speech(std::span<const float> audio, std::span<const SpeechSpan> spans);

struct SpeechGroup {
  std::vector<SpeechSpan> spans;  // in the original audio
  int64_t offset = 0;             // samples of speech in the groups before this one
  int64_t num_samples = 0;        // samples of speech in this group
  double offset_s() const { return static_cast<double>(offset) / 16000.0; }
  double duration_s() const { return static_cast<double>(num_samples) / 16000.0; }
};

// collect_chunks(audio, spans, max_duration=max_duration_s): a span that would take the current
// group past max_duration_s starts the next one. Offsets and durations are faster-whisper's; unlike
// it, a group lists every span it holds (faster-whisper leaves the first span of each later group out
// of its metadata, which nothing reads), and no empty group is made (faster-whisper makes one for no
// speech, and one before a first span longer than max_duration_s).
std::vector<SpeechGroup> group_speech(std::span<const SpeechSpan> spans, double max_duration_s = 30.0);

class SpeechTimeMap {
 public:
  // time_precision: decimals of the times original_time() returns (faster-whisper: 2).
  explicit SpeechTimeMap(std::span<const SpeechSpan> spans, int time_precision = 2);

  // The span a time (seconds in the collected audio) falls in: the first whose collected end is past
  // it, or, for an end time, the one ending exactly there; the last span for times past the end.
  size_t chunk_index(double time, bool is_end = false) const;
  // The time on the original timeline, rounded to time_precision decimals as Python's round() does.
  // chunk_index: the span to map it through (faster-whisper passes the span of a word's middle for
  // both of the word's times); by default the span the time falls in.
  double original_time(double time, std::optional<size_t> chunk_index = std::nullopt, bool is_end = false) const;
  // A sample of the collected audio on the original timeline (the span it falls in, no rounding).
  int64_t original_sample(int64_t sample) const;

  size_t size() const { return chunk_end_.size(); }

 private:
  std::vector<int64_t> chunk_end_;       // each span's end in the collected audio
  std::vector<int64_t> silence_before_;  // samples removed before each span
  int time_precision_;
};

}  // namespace auris
