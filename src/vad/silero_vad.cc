#include "vad/silero_vad.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "auris/error.h"
#include "kernels/cpu/lstm_cell.h"
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
  lstm_cell(gates, lstm_hidden_t_.data(), kHidden, state.h.data(), state.c.data());
  float logit = final_bias_;
  for (int k = 0; k < kHidden; ++k) logit += std::max(state.h[static_cast<size_t>(k)], 0.0f) * final_weight_[static_cast<size_t>(k)];
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

namespace {

// ceil(n / 512) windows cover n samples; fewer cannot.
void check_window_count(int64_t num_samples, int64_t num_windows) {
  const int64_t covering = (num_samples + SileroVad::kWindow - 1) / SileroVad::kWindow;
  if (num_windows < covering)
    throw Error("speech_probabilities: " + std::to_string(num_windows) + " windows cannot cover " +
                std::to_string(num_samples) + " samples (" + std::to_string(covering) + " needed)");
}

}  // namespace

std::vector<float> SileroVad::speech_probabilities(std::span<const float> audio, int64_t num_windows) const {
  if (num_windows >= 0) check_window_count(static_cast<int64_t>(audio.size()), num_windows);  // before any work
  SpeechProbabilityStream stream(*this);
  stream.push(audio);
  return stream.finish(num_windows);
}

// Window i sees samples [512 i - 64, 512 i + 512): pending_ starts at the next window's context, so
// window w of a block starts at pending_[512 w].
SpeechProbabilityStream::SpeechProbabilityStream(const SileroVad& vad)
    : vad_(vad),
      workspace_(std::make_unique<SileroVad::Workspace>()),
      inputs_(static_cast<size_t>(kBlock) * kInput),
      pending_(SileroVad::kContext, 0.0f) {}

SpeechProbabilityStream::~SpeechProbabilityStream() = default;

void SpeechProbabilityStream::check_open() const {
  if (finished_) throw Error("SpeechProbabilityStream: samples pushed or probabilities asked for after finish()");
}

void SpeechProbabilityStream::push(std::span<const float> samples) {
  check_open();
  samples_ += static_cast<int64_t>(samples.size());
  constexpr size_t kFull = SileroVad::kContext + static_cast<size_t>(kBlock) * SileroVad::kWindow;
  while (!samples.empty()) {
    const size_t take = std::min(kFull - pending_.size(), samples.size());
    pending_.insert(pending_.end(), samples.begin(), samples.begin() + static_cast<long>(take));
    samples = samples.subspan(take);
    if (pending_.size() == kFull) run_block(kBlock);
  }
}

void SpeechProbabilityStream::run_block(int count) {
  for (int w = 0; w < count; ++w)
    std::memcpy(inputs_.data() + static_cast<size_t>(w) * kInput, pending_.data() + static_cast<size_t>(w) * SileroVad::kWindow,
                sizeof(float) * kInput);
  vad_.front_end(inputs_.data(), count, *workspace_);
  for (int w = 0; w < count; ++w)
    probabilities_.push_back(vad_.step(workspace_->gates.data() + static_cast<size_t>(w) * kGates, state_));
  // The last window's final 64 samples are the next one's context.
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<long>(count) * SileroVad::kWindow);
}

std::vector<float> SpeechProbabilityStream::finish(int64_t num_windows) {
  check_open();
  if (num_windows < 0) num_windows = (samples_ + SileroVad::kWindow - 1) / SileroVad::kWindow;
  check_window_count(samples_, num_windows);
  finished_ = true;
  // As speech_probabilities() always did: the rest in blocks of kBlock, the last one shorter.
  while (static_cast<int64_t>(probabilities_.size()) < num_windows) {
    const int count = static_cast<int>(std::min<int64_t>(kBlock, num_windows - static_cast<int64_t>(probabilities_.size())));
    const size_t needed = SileroVad::kContext + static_cast<size_t>(count) * SileroVad::kWindow;
    if (pending_.size() < needed) pending_.resize(needed, 0.0f);  // zeros past the audio
    run_block(count);
  }
  std::vector<float>().swap(pending_);
  return std::move(probabilities_);
}

}  // namespace auris
