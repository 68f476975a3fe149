#include "vad/speech_timestamps.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "auris/error.h"

namespace auris {
namespace {

constexpr int64_t kSampleRate = 16000;
constexpr int64_t kWindow = 512;
constexpr int kMaxDurationMs = 3'600'000;  // an hour: far beyond any useful setting

// The options in samples, computed in doubles the way the reference's Python floats are.
struct Limits {
  double threshold, neg_threshold, min_speech, speech_pad, max_speech, min_silence, min_silence_at_max_speech;

  explicit Limits(const SpeechTimestampsOptions& o)
      : threshold(o.threshold),
        neg_threshold(o.neg_threshold ? *o.neg_threshold : std::max(o.threshold - 0.15, 0.01)),
        min_speech(ms_to_samples(o.min_speech_duration_ms)),
        speech_pad(ms_to_samples(o.speech_pad_ms)),
        max_speech(static_cast<double>(kSampleRate) * o.max_speech_duration_s - static_cast<double>(kWindow) - 2 * speech_pad),
        min_silence(ms_to_samples(o.min_silence_duration_ms)),
        min_silence_at_max_speech(ms_to_samples(o.min_silence_at_max_speech_ms)) {}

  static double ms_to_samples(int ms) { return static_cast<double>(kSampleRate * ms) / 1000.0; }
};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

void check_range(const char* option, double value, double min, double max, const std::string& unit = "") {
  if (!(value >= min && value <= max))  // NaN fails too
    throw Error("VAD option " + std::string(option) + " = " + number(value) + unit + " is out of range: allowed " +
                number(min) + unit + " to " + number(max) + unit);
}

// Python's a // 2 (floor division), for a possibly negative gap between spans.
int64_t floor_half(int64_t a) { return a >= 0 ? a / 2 : -((-a + 1) / 2); }

// The main loop of get_speech_timestamps: unpadded spans.
std::vector<SpeechSpan> detect(std::span<const float> probabilities, int64_t num_samples, const Limits& l,
                               bool cut_at_longest_silence) {
  std::vector<SpeechSpan> speeches;
  bool triggered = false;
  int64_t start = 0;  // of the current speech, while triggered
  int64_t temp_end = 0;  // where the silence now under way began (0: none)
  int64_t prev_end = 0, next_start = 0;  // the last long silence in speech, and where speech resumed after it
  std::vector<std::pair<int64_t, int64_t>> possible_ends;  // (silence start, its length) in this speech
  auto forget_silences = [&] {
    prev_end = next_start = temp_end = 0;
    possible_ends.clear();
  };

  for (size_t i = 0; i < probabilities.size(); ++i) {
    const double p = probabilities[i];
    const int64_t now = kWindow * static_cast<int64_t>(i);
    if (p >= l.threshold && temp_end != 0) {  // speech resumes after a silence
      const int64_t silence = now - temp_end;
      if (silence > l.min_silence_at_max_speech) possible_ends.emplace_back(temp_end, silence);
      temp_end = 0;
      if (next_start < prev_end) next_start = now;
    }
    if (p >= l.threshold && !triggered) {
      triggered = true;
      start = now;
      continue;
    }
    if (triggered && static_cast<double>(now - start) > l.max_speech) {
      if (cut_at_longest_silence && !possible_ends.empty()) {
        // The first of the longest silences, as Python's max() picks it.
        const auto longest = std::max_element(possible_ends.begin(), possible_ends.end(),
                                              [](const auto& a, const auto& b) { return a.second < b.second; });
        const int64_t end = longest->first, resume = longest->first + longest->second;
        speeches.push_back({start, end});
        if (resume < end + now) {
          start = resume;
        } else {
          triggered = false;
        }
        forget_silences();
      } else if (prev_end != 0) {
        speeches.push_back({start, prev_end});
        if (next_start < prev_end) {
          triggered = false;
        } else {
          start = next_start;
        }
        forget_silences();
      } else {  // no silence to cut at: cut here
        speeches.push_back({start, now});
        forget_silences();
        triggered = false;
        continue;
      }
    }
    if (p < l.neg_threshold && triggered) {
      if (temp_end == 0) temp_end = now;
      const int64_t silence = now - temp_end;
      if (!cut_at_longest_silence && silence > l.min_silence_at_max_speech) prev_end = temp_end;
      if (silence < l.min_silence) continue;
      if (static_cast<double>(temp_end - start) > l.min_speech) speeches.push_back({start, temp_end});
      forget_silences();
      triggered = false;
    }
  }
  if (triggered && static_cast<double>(num_samples - start) > l.min_speech) speeches.push_back({start, num_samples});
  return speeches;
}

// Pads each span by speech_pad on both sides, splitting the gap where two spans are closer than that.
void pad(std::vector<SpeechSpan>& speeches, int64_t num_samples, double speech_pad) {
  const double length = static_cast<double>(num_samples);
  for (size_t i = 0; i < speeches.size(); ++i) {
    SpeechSpan& s = speeches[i];
    if (i == 0) s.start = static_cast<int64_t>(std::max(0.0, static_cast<double>(s.start) - speech_pad));
    if (i + 1 == speeches.size()) {
      s.end = static_cast<int64_t>(std::min(length, static_cast<double>(s.end) + speech_pad));
      continue;
    }
    SpeechSpan& next = speeches[i + 1];
    const int64_t gap = next.start - s.end;
    if (static_cast<double>(gap) < 2 * speech_pad) {
      s.end += floor_half(gap);
      next.start = std::max<int64_t>(0, next.start - floor_half(gap));
    } else {
      s.end = static_cast<int64_t>(std::min(length, static_cast<double>(s.end) + speech_pad));
      next.start = static_cast<int64_t>(std::max(0.0, static_cast<double>(next.start) - speech_pad));
    }
  }
}

}  // namespace

SpeechTimestampsOptions SpeechTimestampsOptions::faster_whisper() {
  SpeechTimestampsOptions o;
  o.threshold = 0.5;
  o.min_speech_duration_ms = 0;
  o.min_silence_duration_ms = 2000;
  o.speech_pad_ms = 400;
  o.cut_at_longest_silence = false;
  o.faster_whisper_windows = true;
  return o;
}

SpeechTimestampsOptions SpeechTimestampsOptions::faster_whisper_batched() {
  SpeechTimestampsOptions o = faster_whisper();
  o.max_speech_duration_s = 30.0;
  o.min_silence_duration_ms = 160;
  return o;
}

void validate(const SpeechTimestampsOptions& o) {
  check_range("threshold", o.threshold, 0.0, 1.0);
  if (o.neg_threshold) check_range("neg_threshold", *o.neg_threshold, 0.0, 1.0);
  check_range("min_speech_duration_ms", o.min_speech_duration_ms, 0, kMaxDurationMs, " ms");
  check_range("min_silence_duration_ms", o.min_silence_duration_ms, 0, kMaxDurationMs, " ms");
  check_range("speech_pad_ms", o.speech_pad_ms, 0, kMaxDurationMs, " ms");
  check_range("min_silence_at_max_speech_ms", o.min_silence_at_max_speech_ms, 0, kMaxDurationMs, " ms");
  // Speech is cut once longer than max_speech_duration_s less a window and both paddings: that must be positive.
  const double shortest = static_cast<double>(kWindow + 2 * kSampleRate * o.speech_pad_ms / 1000) / kSampleRate;
  if (!(Limits(o).max_speech > 0))
    throw Error("VAD option max_speech_duration_s = " + number(o.max_speech_duration_s) +
                " s is out of range: allowed more than " + number(shortest) +
                " s (a 512-sample window plus twice speech_pad_ms) up to infinity");
}

int64_t vad_window_count(int64_t num_samples, const SpeechTimestampsOptions& options) {
  if (options.faster_whisper_windows) return num_samples / kWindow + 1;
  return (num_samples + kWindow - 1) / kWindow;
}

std::vector<SpeechSpan> speech_timestamps(std::span<const float> probabilities, int64_t num_samples,
                                          const SpeechTimestampsOptions& options) {
  validate(options);
  if (num_samples < 0 || static_cast<int64_t>(probabilities.size()) != vad_window_count(num_samples, options))
    throw Error("speech_timestamps: " + std::to_string(probabilities.size()) + " window probabilities for " +
                std::to_string(num_samples) + " samples; expected " +
                std::to_string(vad_window_count(std::max<int64_t>(num_samples, 0), options)));
  const Limits limits(options);
  std::vector<SpeechSpan> speeches = detect(probabilities, num_samples, limits, options.cut_at_longest_silence);
  pad(speeches, num_samples, limits.speech_pad);
  return speeches;
}

}  // namespace auris
