// Whisper's log-mel front end, exactly as openai/whisper's log_mel_spectrogram: STFT with n_fft 400,
// hop 160, periodic Hann window, reflect padding (center=True), the last frame dropped, power
// spectrum through the slaney mel filter bank, log10(max(x, 1e-10)), clamped to max - 8, (x + 4) / 4.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "auris/audio.h"  // kSampleRate

namespace auris {

inline constexpr int kNFft = 400;
inline constexpr int kHopLength = 160;
inline constexpr int kChunkSeconds = 30;
inline constexpr int kChunkSamples = kSampleRate * kChunkSeconds;  // 480000
inline constexpr int kChunkFrames = kChunkSamples / kHopLength;    // 3000

// Throws auris::Error naming `name` where its `samples` (16 kHz) hold no whole 10-ms frame for
// `purpose` ("transcribe", "detect its language"): none at all, or fewer than kHopLength.
void require_a_frame(const std::string& name, int64_t samples, const char* purpose = "transcribe");

struct LogMel {
  int n_mels = 0;
  int n_frames = 0;
  std::vector<float> data;  // [n_mels x n_frames], row-major
};

// samples: 16 kHz mono; padding: zeros appended first (openai's padding argument).
// Throws auris::Error for n_mels other than 80/128.
LogMel log_mel_spectrogram(std::span<const float> samples, int n_mels, int padding = 0);

// The two halves of log_mel_spectrogram, shared with the streamed spectrogram (streaming_mel.h) so
// both compute the same bits. First, per STFT frame: Hann window, FFT, power, mel filters, log10.
class LogMelFrame {
 public:
  // Throws auris::Error for n_mels other than 80/128.
  explicit LogMelFrame(int n_mels);
  ~LogMelFrame();
  LogMelFrame(const LogMelFrame&) = delete;
  LogMelFrame& operator=(const LogMelFrame&) = delete;

  int n_mels() const { return n_mels_; }
  // x: the kNFft samples of the padded signal the frame covers. Writes log10(max(energy, 1e-10)) of
  // mel bin m to out[m * stride] and raises log_max to the largest value written.
  void compute(const float* x, float* out, size_t stride, float& log_max);

 private:
  struct Workspace;
  int n_mels_;
  std::unique_ptr<Workspace> workspace_;
};

// Second, over the whole spectrogram: clamp to 8 decades below the loudest bin (log_max over every
// frame), then scale to about [-1, 1].
void scale_log_mel(std::span<float> values, float log_max);

// openai pad_or_trim(mel[:, offset:offset + length], n_frames): up to `length` frames from `offset`,
// zero-padded (or trimmed) to n_frames. transcribe() passes the window's real audio length, so the
// frames past the end of the audio are zeros, not the log-mel of the padding.
LogMel mel_window(const LogMel& mel, int offset, int length = kChunkFrames, int n_frames = kChunkFrames);

}  // namespace auris
