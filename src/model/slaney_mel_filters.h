// The mel filter bank Whisper uses (librosa.filters.mel(sr=16000, n_fft=400, n_mels, htk=False,
// norm="slaney")), computed rather than shipped: whisper.cpp reads it from every ggml file, so the
// ggml writer must store it.
#pragma once

#include <vector>

namespace auris {

// [n_mels x 201] row-major, fp32 as librosa returns it (computed in double, rounded once).
std::vector<float> slaney_mel_filters(int n_mels, int sample_rate = 16000, int n_fft = 400);

}  // namespace auris
