#include "audio/mel_filters.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "audio/mel.h"
#include "auris/error.h"

namespace auris {
namespace {

// Slaney's auditory-toolbox mel scale (librosa's default, htk=False): linear below 1 kHz,
// logarithmic above.
constexpr double kLinearHzPerMel = 200.0 / 3.0;
constexpr double kLogStartHz = 1000.0;
constexpr double kLogStartMel = kLogStartHz / kLinearHzPerMel;  // 15
const double kLogStep = std::log(6.4) / 27.0;

double hz_to_mel(double hz) {
  if (hz >= kLogStartHz) return kLogStartMel + std::log(hz / kLogStartHz) / kLogStep;
  return hz / kLinearHzPerMel;
}

double mel_to_hz(double mel) {
  if (mel >= kLogStartMel) return kLogStartHz * std::exp(kLogStep * (mel - kLogStartMel));
  return kLinearHzPerMel * mel;
}

// numpy.linspace(start, stop, n): start + i * step, with the last point exactly stop.
std::vector<double> linspace(double start, double stop, int n) {
  std::vector<double> out(n);
  const double step = (stop - start) / (n - 1);
  for (int i = 0; i < n; ++i) out[i] = i * step + start;
  out[n - 1] = stop;
  return out;
}

void check_n_mels(int n_mels) {
  if (n_mels != 80 && n_mels != 128) {
    throw Error("unsupported number of mel bins " + std::to_string(n_mels) +
                ": Whisper models use 80 or 128 (take n_mels from the model's dimensions)");
  }
}

}  // namespace

MelFilterBank compute_mel_filters(int n_mels) {
  check_n_mels(n_mels);
  // Centre frequencies of n_mels + 2 points evenly spaced in mel from 0 Hz to Nyquist.
  std::vector<double> mel_hz = linspace(hz_to_mel(0.0), hz_to_mel(kSampleRate / 2.0), n_mels + 2);
  for (double& f : mel_hz) f = mel_to_hz(f);

  // numpy.fft.rfftfreq(n_fft, 1 / sr).
  const double bin_hz = 1.0 / (kNFft * (1.0 / kSampleRate));

  MelFilterBank bank;
  bank.n_mels = n_mels;
  bank.weights.assign(static_cast<size_t>(n_mels) * kNFftBins, 0.0f);
  bank.first_bin.assign(n_mels, kNFftBins);
  bank.end_bin.assign(n_mels, 0);
  for (int m = 0; m < n_mels; ++m) {
    const double lower_width = mel_hz[m + 1] - mel_hz[m];
    const double upper_width = mel_hz[m + 2] - mel_hz[m + 1];
    // Slaney normalisation: each triangle has unit area, so the bank is roughly constant-energy.
    const double area_norm = 2.0 / (mel_hz[m + 2] - mel_hz[m]);
    for (int k = 0; k < kNFftBins; ++k) {
      const double hz = k * bin_hz;
      const double rising = (hz - mel_hz[m]) / lower_width;
      const double falling = (mel_hz[m + 2] - hz) / upper_width;
      // librosa stores the triangle in a float32 array before scaling it in place.
      const float triangle = static_cast<float>(std::max(0.0, std::min(rising, falling)));
      const float w = static_cast<float>(triangle * area_norm);
      bank.weights[static_cast<size_t>(m) * kNFftBins + k] = w;
      if (w != 0.0f) {
        bank.first_bin[m] = std::min(bank.first_bin[m], k);
        bank.end_bin[m] = k + 1;
      }
    }
    if (bank.end_bin[m] == 0) bank.first_bin[m] = 0;  // an empty filter: an empty range
  }
  return bank;
}

const MelFilterBank& mel_filters(int n_mels) {
  check_n_mels(n_mels);
  if (n_mels == 128) {
    static const MelFilterBank bank128 = compute_mel_filters(128);
    return bank128;
  }
  static const MelFilterBank bank80 = compute_mel_filters(80);
  return bank80;
}

}  // namespace auris
