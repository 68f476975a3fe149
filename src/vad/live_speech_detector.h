// Speech starts and ends in audio that arrives as it is spoken, as silero-vad's VADIterator finds
// them: one 512-sample window at a time, speech starting at the first window whose probability
// reaches the threshold (pad samples earlier), ending once min_silence of windows below the
// negative threshold follow it (pad samples after the first of them).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "auris/transcribe.h"
#include "vad/silero_vad.h"

namespace auris {

class LiveSpeechDetector {
 public:
  struct Event {
    bool start = true;   // speech starts (else: ends)
    int64_t sample = 0;  // where, in samples since the first window
  };

  // Keeps a reference to vad, which must outlive it. Uses the threshold, neg_threshold,
  // min_silence_duration_ms and speech_pad_ms of `parameters`.
  LiveSpeechDetector(const SileroVad& vad, const VadParameters& parameters);

  // The next window of exactly SileroVad::kWindow samples; a start or an end, if it brings one.
  std::optional<Event> push_window(std::span<const float> window);
  bool in_speech() const { return triggered_; }
  int64_t samples() const { return current_sample_; }

 private:
  const SileroVad& vad_;
  SileroVadState state_;
  float threshold_, neg_threshold_;
  int64_t min_silence_samples_, pad_samples_;
  int64_t current_sample_ = 0;
  int64_t silence_start_ = 0;  // 0: no silence under way (VADIterator's temp_end)
  bool triggered_ = false;
};

}  // namespace auris
