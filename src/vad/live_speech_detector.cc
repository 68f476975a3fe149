#include "vad/live_speech_detector.h"

#include <algorithm>

namespace auris {

LiveSpeechDetector::LiveSpeechDetector(const SileroVad& vad, const VadParameters& parameters)
    : vad_(vad),
      threshold_(static_cast<float>(parameters.threshold)),
      neg_threshold_(static_cast<float>(parameters.neg_threshold.value_or(std::max(parameters.threshold - 0.15, 0.01)))),
      min_silence_samples_(static_cast<int64_t>(parameters.min_silence_duration_ms) * SileroVad::kSampleRate / 1000),
      pad_samples_(static_cast<int64_t>(parameters.speech_pad_ms) * SileroVad::kSampleRate / 1000) {}

std::optional<LiveSpeechDetector::Event> LiveSpeechDetector::push_window(std::span<const float> window) {
  current_sample_ += SileroVad::kWindow;
  const float probability = vad_.process_window(window, state_);
  if (probability >= threshold_) silence_start_ = 0;
  if (probability >= threshold_ && !triggered_) {
    triggered_ = true;
    return Event{true, std::max<int64_t>(0, current_sample_ - pad_samples_ - SileroVad::kWindow)};
  }
  if (probability < neg_threshold_ && triggered_) {
    if (silence_start_ == 0) silence_start_ = current_sample_;
    if (current_sample_ - silence_start_ < min_silence_samples_) return std::nullopt;
    const int64_t end = silence_start_ + pad_samples_ - SileroVad::kWindow;
    silence_start_ = 0;
    triggered_ = false;
    return Event{false, end};
  }
  return std::nullopt;
}

}  // namespace auris
