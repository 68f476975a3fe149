// The slaney-normalised mel filter bank Whisper uses (librosa.filters.mel(sr=16000, n_fft=400,
// n_mels=80 or 128), shipped by openai/whisper as mel_filters.npz), computed from first principles.
#pragma once

#include <vector>

namespace auris {

inline constexpr int kNFftBins = 201;  // n_fft / 2 + 1 = 400 / 2 + 1

struct MelFilterBank {
  int n_mels = 0;
  std::vector<float> weights;  // [n_mels x kNFftBins], row-major
  // Each filter is a triangle: its weights are zero outside bins [first_bin[m], end_bin[m]).
  std::vector<int> first_bin;
  std::vector<int> end_bin;
};

// Computes the bank in double, rounding like librosa's float32 output. Throws auris::Error for
// n_mels other than 80 and 128 (the only banks Whisper models use).
MelFilterBank compute_mel_filters(int n_mels);

// The bank for n_mels, computed once and shared (thread-safe).
const MelFilterBank& mel_filters(int n_mels);

}  // namespace auris
