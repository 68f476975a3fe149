#include "vad/silero_vad.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "auris/error.h"
#include "vad/ggml_vad_file.h"

namespace auris {
namespace {

constexpr int kInput = SileroVad::kContext + SileroVad::kWindow;  // 576 samples a window sees
constexpr int kReflected = 64;                                    // right padding before the STFT
constexpr int kFft = 256, kHop = 128, kBins = kFft / 2 + 1;
constexpr int kFrames = (kInput + kReflected - kFft) / kHop + 1;  // 4
constexpr int kHidden = 128, kGates = 4 * kHidden;                // LSTM gates i, f, g, o
constexpr int kEncoderOut = 128;
// Windows per front-end pass: products of a few hundred rows, buffers of about a megabyte.
constexpr int kBlock = 256;

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

Tensor take(GgmlVadFile& file, const std::string& name) { return std::move(file.tensors.at(name)); }

}  // namespace

struct SileroVad::Workspace {
  std::vector<float> frames, spectrum, a, b, cols, gates;
};

SileroVad::SileroVad(const std::string& ggml_path) : SileroVad(read_ggml_vad(ggml_path)) {}

SileroVad::SileroVad(GgmlVadFile file) {
  Tensor basis = take(file, "_model.stft.forward_basis_buffer");  // [258, 1, 256]
  basis.shape = {2 * kBins, kFft};
  stft_ = Linear(std::move(basis), Tensor());

  // The strides are the architecture's (v5 and v6 alike); the file stores only channels and kernels.
  const int strides[4] = {1, 2, 2, 1};
  for (int i = 0; i < 4; ++i) {
    const std::string layer = "_model.encoder." + std::to_string(i) + ".reparam_conv.";
    const Tensor w = take(file, layer + "weight");  // [out, in, 3]
    Conv& conv = encoder_[static_cast<size_t>(i)];
    conv.out = static_cast<int>(w.dim(0));
    conv.in = static_cast<int>(w.dim(1));
    conv.stride = strides[i];
    Tensor taps({conv.out, 3 * conv.in});
    for (int o = 0; o < conv.out; ++o)
      for (int c = 0; c < conv.in; ++c)
        for (int k = 0; k < 3; ++k)
          taps.data[(static_cast<size_t>(o) * 3 + k) * conv.in + c] = w.data[(static_cast<size_t>(o) * conv.in + c) * 3 + k];
    conv.taps = Linear(std::move(taps), take(file, layer + "bias"));
  }

  Tensor bias = take(file, "_model.decoder.rnn.bias_ih");
  const Tensor bias_hh = take(file, "_model.decoder.rnn.bias_hh");
  for (int i = 0; i < kGates; ++i) bias.data[i] += bias_hh.data[i];
  lstm_input_ = Linear(take(file, "_model.decoder.rnn.weight_ih"), std::move(bias));
  const Tensor w_hh = take(file, "_model.decoder.rnn.weight_hh");  // [512, 128]
  lstm_hidden_t_.resize(static_cast<size_t>(kGates) * kHidden);
  for (int g = 0; g < kGates; ++g)
    for (int j = 0; j < kHidden; ++j) lstm_hidden_t_[static_cast<size_t>(j) * kGates + g] = w_hh.data[static_cast<size_t>(g) * kHidden + j];
  final_weight_ = take(file, "_model.decoder.decoder.2.weight").data;
  final_bias_ = take(file, "_model.decoder.decoder.2.bias").data.at(0);
}

namespace {

// A k=3, padding-1 conv with ReLU over t_in frames of each of `count` windows (activations
// frame-major, [count x t_in x in]) as one product: each output frame's three input frames are laid
// side by side (im2col), zeros where they fall outside the window. Returns the output frame count.
int conv_relu(const Linear& taps, int in, int out, int stride, const std::vector<float>& x, int count, int t_in,
              std::vector<float>& cols, std::vector<float>& y) {
  const int t_out = (t_in - 1) / stride + 1;
  const size_t width = 3 * static_cast<size_t>(in);
  cols.assign(static_cast<size_t>(count) * t_out * width, 0.0f);
  for (int w = 0; w < count; ++w)
    for (int t = 0; t < t_out; ++t)
      for (int k = 0; k < 3; ++k) {
        const int source = t * stride - 1 + k;
        if (source < 0 || source >= t_in) continue;
        std::memcpy(cols.data() + (static_cast<size_t>(w) * t_out + t) * width + static_cast<size_t>(k) * in,
                    x.data() + (static_cast<size_t>(w) * t_in + source) * in, sizeof(float) * in);
      }
  y.resize(static_cast<size_t>(count) * t_out * out);
  taps.forward(cols.data(), count * t_out, y.data());
  for (float& v : y) v = std::max(v, 0.0f);
  return t_out;
}

}  // namespace

void SileroVad::front_end(const float* inputs, int count, Workspace& ws) const {
  // Reflection padding as torch's F.pad(x, [0, 64], 'reflect') (the edge sample is not repeated),
  // then the STFT's frames of 256 samples every 128.
  ws.frames.resize(static_cast<size_t>(count) * kFrames * kFft);
  float padded[kInput + kReflected];
  for (int w = 0; w < count; ++w) {
    std::memcpy(padded, inputs + static_cast<size_t>(w) * kInput, sizeof(float) * kInput);
    for (int j = 0; j < kReflected; ++j) padded[kInput + j] = padded[kInput - 2 - j];
    for (int t = 0; t < kFrames; ++t)
      std::memcpy(ws.frames.data() + (static_cast<size_t>(w) * kFrames + t) * kFft, padded + t * kHop, sizeof(float) * kFft);
  }
  const int rows = count * kFrames;
  ws.spectrum.resize(static_cast<size_t>(rows) * 2 * kBins);
  stft_.forward(ws.frames.data(), rows, ws.spectrum.data());
  ws.a.resize(static_cast<size_t>(rows) * kBins);
  for (int r = 0; r < rows; ++r) {
    const float* re = ws.spectrum.data() + static_cast<size_t>(r) * 2 * kBins;
    const float* im = re + kBins;
    float* magnitude = ws.a.data() + static_cast<size_t>(r) * kBins;
    for (int k = 0; k < kBins; ++k) magnitude[k] = std::sqrt(re[k] * re[k] + im[k] * im[k]);
  }

  int frames = kFrames;
  for (const Conv& conv : encoder_) {
    frames = conv_relu(conv.taps, conv.in, conv.out, conv.stride, ws.a, count, frames, ws.cols, ws.b);
    std::swap(ws.a, ws.b);
  }
  // One frame of 128 channels per window is left: the LSTM's input.
  ws.gates.resize(static_cast<size_t>(count) * kGates);
  lstm_input_.forward(ws.a.data(), count, ws.gates.data());
}

float SileroVad::step(const float* input_gates, SileroVadState& state) const {
  float gates[kGates];
  std::memcpy(gates, input_gates, sizeof gates);
  for (int j = 0; j < kHidden; ++j) {
    const float h = state.h[static_cast<size_t>(j)];
    const float* column = lstm_hidden_t_.data() + static_cast<size_t>(j) * kGates;
    for (int g = 0; g < kGates; ++g) gates[g] += column[g] * h;
  }
  float logit = final_bias_;
  for (int k = 0; k < kHidden; ++k) {
    const float input = sigmoid(gates[k]);
    const float forget = sigmoid(gates[kHidden + k]);
    const float cell = std::tanh(gates[2 * kHidden + k]);
    const float output = sigmoid(gates[3 * kHidden + k]);
    float& c = state.c[static_cast<size_t>(k)];
    c = forget * c + input * cell;
    const float h = output * std::tanh(c);
    state.h[static_cast<size_t>(k)] = h;
    logit += std::max(h, 0.0f) * final_weight_[static_cast<size_t>(k)];
  }
  return sigmoid(logit);
}

float SileroVad::process_window(std::span<const float> window, SileroVadState& state) const {
  if (window.size() != static_cast<size_t>(kWindow))
    throw Error("Silero VAD takes windows of 512 samples at 16 kHz, got " + std::to_string(window.size()));
  float input[kInput];
  std::copy(state.context.begin(), state.context.end(), input);
  std::copy(window.begin(), window.end(), input + kContext);
  std::copy(window.end() - kContext, window.end(), state.context.begin());
  Workspace ws;
  front_end(input, 1, ws);
  return step(ws.gates.data(), state);
}

std::vector<float> SileroVad::speech_probabilities(std::span<const float> audio, int64_t num_windows) const {
  const int64_t n = static_cast<int64_t>(audio.size());
  const int64_t covering = (n + kWindow - 1) / kWindow;
  if (num_windows < 0) num_windows = covering;
  if (num_windows < covering)
    throw Error("speech_probabilities: " + std::to_string(num_windows) + " windows cannot cover " + std::to_string(n) +
                " samples (" + std::to_string(covering) + " needed)");
  std::vector<float> probabilities(static_cast<size_t>(num_windows));
  SileroVadState state;
  Workspace ws;
  std::vector<float> inputs(static_cast<size_t>(kBlock) * kInput);
  for (int64_t first = 0; first < num_windows; first += kBlock) {
    const int count = static_cast<int>(std::min<int64_t>(kBlock, num_windows - first));
    // Window i sees samples [512 i - 64, 512 i + 512): the context before it, zeros outside the audio.
    for (int w = 0; w < count; ++w) {
      const int64_t start = (first + w) * kWindow - kContext;
      const int64_t from = std::clamp<int64_t>(start, 0, n), to = std::clamp<int64_t>(start + kInput, 0, n);
      float* dst = inputs.data() + static_cast<size_t>(w) * kInput;
      std::fill(dst, dst + kInput, 0.0f);
      if (to > from) std::copy(audio.begin() + from, audio.begin() + to, dst + (from - start));
    }
    front_end(inputs.data(), count, ws);
    for (int w = 0; w < count; ++w)
      probabilities[static_cast<size_t>(first + w)] = step(ws.gates.data() + static_cast<size_t>(w) * kGates, state);
  }
  return probabilities;
}

}  // namespace auris
