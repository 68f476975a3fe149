#include "audio/mel.h"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <numbers>
#include <string>

#include "audio/mel_filters.h"
#include "auris/error.h"
#include "util/out_of_memory.h"

namespace auris {
namespace {

constexpr int kPad = kNFft / 2;  // center=True: the signal is reflect-padded by n_fft / 2 each side

struct FftwFree {
  void operator()(void* p) const { fftwf_free(p); }
};
template <typename T>
using FftwBuffer = std::unique_ptr<T[], FftwFree>;

template <typename T>
FftwBuffer<T> fftw_buffer(size_t n) {
  void* p = fftwf_malloc(n * sizeof(T));
  if (!p) throw OutOfMemory("allocating an FFT buffer");
  return FftwBuffer<T>(static_cast<T*>(p));
}

// The one real-to-complex plan of size n_fft. FFTW's planner is not thread-safe, so the plan is made
// once under a lock; executing it on other (equally aligned, fftwf_malloc'd) arrays is thread-safe.
// FFTW_ESTIMATE keeps the chosen algorithm, and so the rounding, the same from run to run.
fftwf_plan stft_plan() {
  static std::once_flag once;
  static fftwf_plan plan = nullptr;
  std::call_once(once, [] {
    auto in = fftw_buffer<float>(kNFft);
    auto out = fftw_buffer<fftwf_complex>(kNFftBins);
    plan = fftwf_plan_dft_r2c_1d(kNFft, in.get(), out.get(), FFTW_ESTIMATE);
  });
  if (!plan) throw Error("FFTW could not create a " + std::to_string(kNFft) + "-point FFT plan");
  return plan;
}

// torch.hann_window(400): the periodic Hann window, 0.5 - 0.5 cos(2 pi k / N).
const std::vector<float>& hann_window() {
  static const std::vector<float> window = [] {
    std::vector<float> w(kNFft);
    for (int k = 0; k < kNFft; ++k) {
      w[k] = static_cast<float>(0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * k / kNFft));
    }
    return w;
  }();
  return window;
}

// Index into a signal of length n reflected about its ends without repeating them (numpy/torch
// "reflect"), repeating the reflection for signals shorter than the padding.
int64_t reflect(int64_t i, int64_t n) {
  if (n == 1) return 0;
  const int64_t period = 2 * (n - 1);
  i %= period;
  if (i < 0) i += period;
  return i < n ? i : period - i;
}

}  // namespace

struct LogMelFrame::Workspace {
  explicit Workspace(const MelFilterBank& filters) : bank(filters) {}
  const MelFilterBank& bank;
  fftwf_plan plan = stft_plan();
  FftwBuffer<float> frame = fftw_buffer<float>(kNFft);
  FftwBuffer<fftwf_complex> spectrum = fftw_buffer<fftwf_complex>(kNFftBins);
  float power[kNFftBins] = {};
};

LogMelFrame::LogMelFrame(int n_mels) : n_mels_(n_mels), workspace_(std::make_unique<Workspace>(mel_filters(n_mels))) {}

LogMelFrame::~LogMelFrame() = default;

void LogMelFrame::compute(const float* x, float* out, size_t stride, float& log_max) {
  Workspace& ws = *workspace_;
  const std::vector<float>& window = hann_window();
  for (int k = 0; k < kNFft; ++k) ws.frame[k] = x[k] * window[k];
  fftwf_execute_dft_r2c(ws.plan, ws.frame.get(), ws.spectrum.get());
  for (int k = 0; k < kNFftBins; ++k) {
    const float re = ws.spectrum[k][0], im = ws.spectrum[k][1];
    ws.power[k] = re * re + im * im;
  }
  for (int m = 0; m < n_mels_; ++m) {
    // Only the triangle's non-zero bins; summed in double so the order does not matter.
    const float* w = ws.bank.weights.data() + static_cast<size_t>(m) * kNFftBins;
    double energy = 0.0;
    for (int k = ws.bank.first_bin[m]; k < ws.bank.end_bin[m]; ++k) energy += double(w[k]) * ws.power[k];
    const float log_energy = std::log10(std::max(static_cast<float>(energy), 1e-10f));
    log_max = std::max(log_max, log_energy);
    out[static_cast<size_t>(m) * stride] = log_energy;
  }
}

void scale_log_mel(std::span<float> values, float log_max) {
  // Compress the dynamic range to 8 decades below the loudest bin, then scale to about [-1, 1].
  const float floor = log_max - 8.0f;
  for (float& v : values) v = (std::max(v, floor) + 4.0f) / 4.0f;
}

LogMel log_mel_spectrogram(std::span<const float> samples, int n_mels, int padding) {
  LogMelFrame frame(n_mels);  // validates n_mels first
  if (padding < 0) {
    throw Error("negative mel padding " + std::to_string(padding) + ": padding counts zero samples appended");
  }
  const int64_t n = static_cast<int64_t>(samples.size()) + padding;
  // torch.stft(center=True) gives 1 + n / hop frames; Whisper drops the last one.
  const int64_t n_frames = n / kHopLength;
  if (n_frames > std::numeric_limits<int>::max() / n_mels) {
    throw Error("audio too long for one log-mel spectrogram (" + std::to_string(n) +
                " samples): split it into shorter pieces");
  }
  LogMel mel;
  mel.n_mels = n_mels;
  mel.n_frames = static_cast<int>(n_frames);
  mel.data.assign(static_cast<size_t>(n_mels) * n_frames, 0.0f);
  if (n_frames == 0) return mel;

  // The padded signal: the audio, then `padding` zeros, reflected by kPad samples at both ends.
  std::vector<float> padded(static_cast<size_t>(n + 2 * kPad));
  for (int64_t j = 0; j < static_cast<int64_t>(padded.size()); ++j) {
    const int64_t src = reflect(j - kPad, n);
    padded[j] = src < static_cast<int64_t>(samples.size()) ? samples[src] : 0.0f;
  }

  float log_max = -std::numeric_limits<float>::infinity();
  for (int64_t t = 0; t < n_frames; ++t) {
    frame.compute(padded.data() + t * kHopLength, mel.data.data() + t, static_cast<size_t>(n_frames), log_max);
  }
  scale_log_mel(mel.data, log_max);
  return mel;
}

LogMel mel_window(const LogMel& mel, int offset, int length, int n_frames) {
  if (offset < 0 || n_frames < 0 || length < 0) {
    throw Error("invalid mel window (offset " + std::to_string(offset) + ", " + std::to_string(n_frames) +
                " frames): both must be non-negative");
  }
  LogMel window;
  window.n_mels = mel.n_mels;
  window.n_frames = n_frames;
  window.data.assign(static_cast<size_t>(mel.n_mels) * n_frames, 0.0f);
  const int available = std::clamp(std::min(length, mel.n_frames - offset), 0, n_frames);
  if (available == 0) return window;
  for (int m = 0; m < mel.n_mels; ++m) {
    const float* src = mel.data.data() + static_cast<size_t>(m) * mel.n_frames + offset;
    std::copy(src, src + available, window.data.data() + static_cast<size_t>(m) * n_frames);
  }
  return window;
}

void require_a_frame(const std::string& name, int64_t samples, const char* purpose) {
  if (samples == 0) throw Error("'" + name + "' contains no audio samples");
  if (samples < kHopLength)
    throw Error("'" + name + "' is too short to " + purpose + ": " + std::to_string(samples) +
                " samples at 16 kHz, under one 10-ms frame");
}

}  // namespace auris
