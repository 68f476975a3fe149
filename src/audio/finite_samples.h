// Whisper's log-mel spectrogram of a window holding one NaN or infinity is NaN throughout, and the
// decoder reads that as confident words: every whole array of samples is checked before any work.
#pragma once

#include <cmath>
#include <cstdio>
#include <span>
#include <string>

#include "auris/error.h"

namespace auris {

// Throws auris::Error naming the first sample (and its time at 16 kHz) that is not finite.
inline void require_finite_samples(std::span<const float> samples, const std::string& what = "the audio") {
  for (size_t i = 0; i < samples.size(); ++i) {
    if (std::isfinite(samples[i])) continue;
    char at[64];
    std::snprintf(at, sizeof at, "%.3f", static_cast<double>(i) / 16000.0);
    throw Error(what + " holds a NaN or an infinity at sample " + std::to_string(i) + " (" + at +
                " s at 16 kHz): give finite samples in [-1, 1]");
  }
}

}  // namespace auris
