// Whisper's log-mel front end, exactly as openai/whisper's log_mel_spectrogram: STFT with n_fft 400,
// hop 160, periodic Hann window, reflect padding (center=True), the last frame dropped, power
// spectrum through the slaney mel filter bank, log10(max(x, 1e-10)), clamped to max - 8, (x + 4) / 4.
#pragma once

#include <span>
#include <vector>

namespace auris {

inline constexpr int kSampleRate = 16000;
inline constexpr int kNFft = 400;
inline constexpr int kHopLength = 160;
inline constexpr int kChunkSeconds = 30;
inline constexpr int kChunkSamples = kSampleRate * kChunkSeconds;  // 480000
inline constexpr int kChunkFrames = kChunkSamples / kHopLength;    // 3000

struct LogMel {
  int n_mels = 0;
  int n_frames = 0;
  std::vector<float> data;  // [n_mels x n_frames], row-major
};

// samples: 16 kHz mono; padding: zeros appended first (openai's padding argument).
// Throws auris::Error for n_mels other than 80/128.
LogMel log_mel_spectrogram(std::span<const float> samples, int n_mels, int padding = 0);

// openai pad_or_trim(mel[:, offset:offset + length], n_frames): up to `length` frames from `offset`,
// zero-padded (or trimmed) to n_frames. transcribe() passes the window's real audio length, so the
// frames past the end of the audio are zeros, not the log-mel of the padding.
LogMel mel_window(const LogMel& mel, int offset, int length = kChunkFrames, int n_frames = kChunkFrames);

}  // namespace auris
