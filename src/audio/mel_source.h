// Where the seek loop gets its 30-s log-mel windows from. openai/whisper computes the log-mel of the
// whole recording (plus 30 s of zeros) and slices it; a MelSource gives the same windows, either from
// a spectrogram in memory or streamed from a file with bounded memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

#include "audio/mel.h"

namespace auris {

class MelSource {
 public:
  virtual ~MelSource() = default;
  virtual int n_mels() const = 0;
  // Frames of real audio: openai's mel.shape[-1] - N_FRAMES for the padded spectrogram.
  virtual int content_frames() const = 0;
  // Samples of the audio (16 kHz).
  virtual int64_t num_samples() const = 0;
  // openai pad_or_trim(mel[:, offset:offset + length], 3000) of log_mel_spectrogram(audio, n_mels,
  // padding=480000). The seek loop's offsets only grow, except after language detection, which
  // may look at later windows first: a stream need not keep earlier frames cheap to revisit.
  virtual LogMel window(int offset, int length) = 0;
  // True when every sample is exactly zero (digital silence): there is nothing to transcribe, and
  // Whisper would only hallucinate ("you") on it.
  virtual bool silent() const = 0;
};

// The whole padded spectrogram of samples already in memory.
class InMemoryMel : public MelSource {
 public:
  InMemoryMel(std::span<const float> samples, int n_mels)
      : mel_(log_mel_spectrogram(samples, n_mels, kChunkSamples)),
        num_samples_(static_cast<int64_t>(samples.size())),
        silent_(std::all_of(samples.begin(), samples.end(), [](float x) { return x == 0.0f; })) {}
  int n_mels() const override { return mel_.n_mels; }
  int content_frames() const override { return mel_.n_frames - kChunkFrames; }
  int64_t num_samples() const override { return num_samples_; }
  LogMel window(int offset, int length) override { return mel_window(mel_, offset, length); }
  bool silent() const override { return silent_; }

 private:
  LogMel mel_;
  int64_t num_samples_;
  bool silent_;
};

}  // namespace auris
