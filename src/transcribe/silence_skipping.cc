#include "transcribe/silence_skipping.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace auris {
namespace {

constexpr double kFramesPerSecond = 100.0;
// transcribe.py's `punctuation`: words that are one of these (a substring test, as openai's `in`)
// do not count towards a segment's anomaly.
constexpr std::string_view kPunctuation =
    "\"'\xE2\x80\x9C\xC2\xBF([{-\"'.\xE3\x80\x82,\xEF\xBC\x8C!\xEF\xBC\x81?\xEF\xBC\x9F:\xEF\xBC\x9A\xE2\x80\x9D)]}\xE3\x80\x81";

// Python's round() of a float to an int: halves to even.
int round_frames(double seconds) { return static_cast<int>(std::nearbyint(seconds * kFramesPerSecond)); }

const Segment* next_words_segment(const std::vector<Segment>& segments, size_t from) {
  for (size_t i = from; i < segments.size(); ++i)
    if (!segments[i].words.empty()) return &segments[i];
  return nullptr;
}

}  // namespace

std::optional<double> last_end(const std::vector<Segment>& segments) {
  for (auto s = segments.rbegin(); s != segments.rend(); ++s)
    if (!s->words.empty()) return s->words.back().end;
  if (segments.empty()) return std::nullopt;
  return segments.back().end;
}

double word_anomaly_score(const Word& word) {
  const double duration = word.end - word.start;
  double score = 0.0;
  if (word.probability < kImprobableWord) score += 1.0;
  if (duration < 0.133) score += (0.133 - duration) * 15;
  if (duration > 2.0) score += duration - 2.0;
  return score;
}

bool is_segment_anomaly(const Segment* segment) {
  if (segment == nullptr || segment->words.empty()) return false;
  double score = 0.0;
  int counted = 0;
  for (const Word& w : segment->words) {
    if (kPunctuation.find(w.word) != std::string_view::npos) continue;
    if (counted == 8) break;  // only the first 8 words
    score += word_anomaly_score(w);
    ++counted;
  }
  // A segment of punctuation only (no words counted) is an anomaly too, as in openai.
  return score >= 3 || score + 0.01 >= counted;
}

size_t count_before_anomalous_tail(const std::vector<Segment>& segments) {
  size_t kept = segments.size();
  while (kept > 0 && is_segment_anomaly(&segments[kept - 1])) --kept;
  return kept;
}

size_t count_before_anomalous_words(const std::vector<Word>& words) {
  // Scanned from the end, up to two ordinary words in a row (speech that was said): the earliest
  // start whose run qualifies wins.
  size_t kept = words.size();
  double score = 0.0;
  int counted = 0, ordinary_in_a_row = 0;
  for (size_t i = words.size(); i-- > 0 && ordinary_in_a_row < 2;) {
    if (kPunctuation.find(words[i].word) != std::string_view::npos) continue;
    const double word_score = word_anomaly_score(words[i]);
    score += word_score;
    ++counted;
    ordinary_in_a_row = word_score < 1.0 ? ordinary_in_a_row + 1 : 0;
    if (word_score >= 1.0 && score + 0.01 >= counted) kept = i;
  }
  return kept;
}

SeekDecision seek_after_word_timestamps(std::vector<Segment>& segments, const WindowPosition& window, int seek,
                                        std::optional<double> hallucination_silence_threshold,
                                        double last_speech_timestamp) {
  SeekDecision decision{seek, false};
  if (!window.single_timestamp_ending) {
    const std::optional<double> end = last_end(segments);
    if (end && *end > window.time_offset) decision.seek = round_frames(*end);
  }
  if (!hallucination_silence_threshold) return decision;
  const double threshold = *hallucination_silence_threshold;

  if (!window.single_timestamp_ending) {
    const std::optional<double> end = last_end(segments);
    if (end && *end > window.time_offset) {
      const double remaining_duration = window.window_end_time - *end;
      decision.seek = remaining_duration > threshold ? round_frames(*end) : window.previous_seek + window.segment_size;
    }
  }

  // If the first segment might be a hallucination, skip the leading silence.
  const Segment* first = next_words_segment(segments, 0);
  if (first != nullptr && is_segment_anomaly(first)) {
    const double gap = first->start - window.time_offset;
    if (gap > threshold) {
      decision.seek = window.previous_seek + round_frames(gap);
      decision.drop_window = true;
      return decision;
    }
  }

  // Skip the silence before any possible hallucination surrounded by silence or more hallucinations.
  double hal_last_end = last_speech_timestamp;
  for (size_t si = 0; si < segments.size(); ++si) {
    const Segment& segment = segments[si];
    if (segment.words.empty()) continue;
    if (is_segment_anomaly(&segment)) {
      const Segment* next = next_words_segment(segments, si + 1);
      const double hal_next_start = next != nullptr ? next->words.front().start : window.time_offset + window.segment_duration;
      const bool silence_before = segment.start - hal_last_end > threshold || segment.start < threshold ||
                                  segment.start - window.time_offset < 2.0;
      const bool silence_after = hal_next_start - segment.end > threshold || is_segment_anomaly(next) ||
                                 window.window_end_time - segment.end < 2.0;
      if (silence_before && silence_after) {
        decision.seek = round_frames(std::max(window.time_offset + 1, segment.start));
        if (window.content_duration - segment.end < threshold) decision.seek = window.content_frames;
        segments.resize(si);
        break;
      }
    }
    hal_last_end = segment.end;
  }
  return decision;
}

}  // namespace auris
