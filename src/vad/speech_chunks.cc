#include "vad/speech_chunks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "auris/error.h"

namespace auris {
namespace {

constexpr double kSampleRate = 16000.0;

// Python's round(x, digits): correctly rounded to the nearest decimal, ties to even, which printf's
// conversion of the exact binary value also gives.
double round_decimal(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return std::strtod(buf, nullptr);
}

void check_span(const SpeechSpan& s, int64_t limit) {
  if (s.start < 0 || s.end < s.start || s.end > limit)
    throw Error("speech span [" + std::to_string(s.start) + ", " + std::to_string(s.end) + ") does not lie within " +
                std::to_string(limit) + " samples of audio");
}

}  // namespace

std::vector<float> collect_speech(std::span<const float> audio, std::span<const SpeechSpan> spans) {
  size_t total = 0;
  for (const SpeechSpan& s : spans) {
    check_span(s, static_cast<int64_t>(audio.size()));
    total += static_cast<size_t>(s.end - s.start);
  }
  std::vector<float> out;
  out.reserve(total);
  for (const SpeechSpan& s : spans) out.insert(out.end(), audio.begin() + s.start, audio.begin() + s.end);
  return out;
}

std::vector<SpeechGroup> group_speech(std::span<const SpeechSpan> spans, double max_duration_s) {
  if (!(max_duration_s > 0)) throw Error("group_speech: max_duration_s must be positive");
  const double limit = max_duration_s * kSampleRate;
  std::vector<SpeechGroup> groups;
  SpeechGroup current;
  for (const SpeechSpan& s : spans) {
    check_span(s, INT64_MAX);
    const int64_t length = s.end - s.start;
    if (static_cast<double>(current.num_samples + length) > limit && !current.spans.empty()) {
      const int64_t next_offset = current.offset + current.num_samples;
      groups.push_back(std::move(current));
      current = SpeechGroup();
      current.offset = next_offset;
    }
    current.spans.push_back(s);
    current.num_samples += length;
  }
  if (!current.spans.empty()) groups.push_back(std::move(current));
  return groups;
}

SpeechTimeMap::SpeechTimeMap(std::span<const SpeechSpan> spans, int time_precision) : time_precision_(time_precision) {
  int64_t previous_end = 0, silence = 0;
  for (const SpeechSpan& s : spans) {
    if (s.start < previous_end || s.end < s.start)
      throw Error("SpeechTimeMap: speech spans must be in order and not overlap; [" + std::to_string(s.start) + ", " +
                  std::to_string(s.end) + ") follows a span ending at " + std::to_string(previous_end));
    silence += s.start - previous_end;
    previous_end = s.end;
    chunk_end_.push_back(s.end - silence);
    silence_before_.push_back(silence);
  }
}

size_t SpeechTimeMap::chunk_index(double time, bool is_end) const {
  if (chunk_end_.empty()) throw Error("SpeechTimeMap: no speech spans to map a time through");
  // Rounded, not truncated as faster-whisper does: a time at a span's start (offset / 16000) can come
  // out one sample short, and would then map through the span before it.
  const int64_t sample = std::llround(time * kSampleRate);
  if (is_end) {
    const auto exact = std::find(chunk_end_.begin(), chunk_end_.end(), sample);
    if (exact != chunk_end_.end()) return static_cast<size_t>(exact - chunk_end_.begin());
  }
  const auto after = std::upper_bound(chunk_end_.begin(), chunk_end_.end(), sample);
  return std::min(static_cast<size_t>(after - chunk_end_.begin()), chunk_end_.size() - 1);
}

double SpeechTimeMap::original_time(double time, std::optional<size_t> chunk_index, bool is_end) const {
  if (chunk_end_.empty()) return round_decimal(time, time_precision_);  // nothing was removed
  const size_t i = chunk_index ? *chunk_index : this->chunk_index(time, is_end);
  if (i >= chunk_end_.size())
    throw Error("SpeechTimeMap: span " + std::to_string(i) + " of " + std::to_string(chunk_end_.size()));
  return round_decimal(static_cast<double>(silence_before_[i]) / kSampleRate + time, time_precision_);
}

int64_t SpeechTimeMap::original_sample(int64_t sample) const {
  if (chunk_end_.empty()) return sample;
  const auto after = std::upper_bound(chunk_end_.begin(), chunk_end_.end(), sample);
  const size_t i = std::min(static_cast<size_t>(after - chunk_end_.begin()), chunk_end_.size() - 1);
  return sample + silence_before_[i];
}

}  // namespace auris
