#include "model/slaney_mel_filters.h"

#include <algorithm>
#include <cmath>

namespace auris {
namespace {

// Slaney's auditory toolbox mel scale: linear below 1 kHz, logarithmic above.
constexpr double kLinearStep = 200.0 / 3.0;
constexpr double kLogStartHz = 1000.0;
constexpr double kLogStartMel = kLogStartHz / kLinearStep;
const double kLogStep = std::log(6.4) / 27.0;

double hz_to_mel(double hz) {
  return hz >= kLogStartHz ? kLogStartMel + std::log(hz / kLogStartHz) / kLogStep : hz / kLinearStep;
}

double mel_to_hz(double mel) {
  return mel >= kLogStartMel ? kLogStartHz * std::exp(kLogStep * (mel - kLogStartMel)) : kLinearStep * mel;
}

}  // namespace

std::vector<float> slaney_mel_filters(int n_mels, int sample_rate, int n_fft) {
  const int n_bins = n_fft / 2 + 1;
  std::vector<double> fft_hz(static_cast<size_t>(n_bins));
  for (int k = 0; k < n_bins; ++k) fft_hz[static_cast<size_t>(k)] = k * (static_cast<double>(sample_rate) / n_fft);
  // n_mels + 2 band edges equally spaced on the mel scale from 0 Hz to Nyquist.
  const double mel_max = hz_to_mel(sample_rate / 2.0);
  std::vector<double> edge(static_cast<size_t>(n_mels + 2));
  const double step = mel_max / (n_mels + 1);  // as numpy.linspace
  for (int i = 0; i < n_mels + 2; ++i) edge[static_cast<size_t>(i)] = mel_to_hz(i == n_mels + 1 ? mel_max : i * step);

  std::vector<float> filters(static_cast<size_t>(n_mels * n_bins));
  for (int m = 0; m < n_mels; ++m) {
    const double lo = edge[static_cast<size_t>(m)], mid = edge[static_cast<size_t>(m + 1)], hi = edge[static_cast<size_t>(m + 2)];
    const double norm = 2.0 / (hi - lo);  // slaney: constant energy per band
    for (int k = 0; k < n_bins; ++k) {
      const double f = fft_hz[static_cast<size_t>(k)];
      const double rising = (f - lo) / (mid - lo), falling = (hi - f) / (hi - mid);
      filters[static_cast<size_t>(m * n_bins + k)] = static_cast<float>(std::max(0.0, std::min(rising, falling)) * norm);
    }
  }
  return filters;
}

}  // namespace auris
