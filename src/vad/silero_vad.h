// Silero VAD v5/v6 at 16 kHz in native code: the speech probability of each 512-sample window, as the
// silero-vad package's model computes it. Each window is prepended with the last 64 samples before
// it (zeros before the audio), padded on the right by 64 reflected samples, and goes through an STFT
// (a strided conv with the stored basis: 4 frames of 129 magnitudes), four k=3 convs with ReLU, one
// LSTM cell step whose state carries over to the next window, and a 1x1 conv with a sigmoid.
//
// Only the LSTM step depends on the windows before, so speech_probabilities() runs the rest for a
// block of windows at a time as matrix products and then steps the LSTM through the block.
// A SileroVad can be shared by threads: every call keeps its own state and workspace.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/cpu/linear.h"

namespace auris {

struct GgmlVadFile;

// What the model carries from one window to the next: the reference's context and LSTM state.
struct SileroVadState {
  std::array<float, 64> context{};  // the last samples of the previous window
  std::array<float, 128> h{}, c{};  // LSTM hidden and cell state
  void reset() { *this = SileroVadState(); }
};

class SileroVad {
 public:
  static constexpr int kSampleRate = 16000;
  static constexpr int kWindow = 512;   // samples each probability covers
  static constexpr int kContext = 64;   // samples of the previous window each window sees

  // Loads whisper.cpp's ggml VAD file (vad/ggml_vad_file.h); throws auris::Error for a bad file.
  explicit SileroVad(const std::string& ggml_path);
  explicit SileroVad(GgmlVadFile file);

  // One probability per 512-sample window of 16 kHz mono audio, from a fresh state, as
  // silero-vad's get_speech_timestamps computes them: windows from sample 0, the last one padded with
  // zeros. num_windows < 0 means ceil(n / 512); more windows than that see zeros (faster-whisper's
  // padding can add one, see speech_timestamps.h). A SpeechProbabilityStream fed the same audio.
  std::vector<float> speech_probabilities(std::span<const float> audio, int64_t num_windows = -1) const;

  // One window of exactly 512 samples after the windows `state` has seen, as one call of the
  // package's model does (reset the state where the model's reset_states() would be called).
  // Within 1e-5 of speech_probabilities(), not bit for bit: it runs the front end one window at a
  // time, where speech_probabilities() runs it a block at a time. SpeechProbabilityStream is exact.
  float process_window(std::span<const float> window, SileroVadState& state) const;

 private:
  friend class SpeechProbabilityStream;
  struct Workspace;
  // Everything before the LSTM for `count` windows of kContext + kWindow samples each: the LSTM's
  // input projection (both biases added) into ws.gates, [count x 512].
  void front_end(const float* inputs, int count, Workspace& ws) const;
  // One LSTM step from the gate pre-activations of the input; returns the speech probability.
  float step(const float* input_gates, SileroVadState& state) const;

  Linear stft_;                     // [258 x 256]: the real and imaginary basis rows
  struct Conv {
    Linear taps;                    // [out x 3 * in], taps outermost (the im2col order)
    int in = 0, out = 0, stride = 1;
  };
  std::array<Conv, 4> encoder_;
  Linear lstm_input_;               // W_ih [512 x 128], bias b_ih + b_hh
  std::vector<float> lstm_hidden_t_;  // W_hh transposed, [128 x 512], as lstm_cell() takes it
  std::vector<float> final_weight_;   // [128]
  float final_bias_ = 0.0f;
};

// speech_probabilities() of audio that arrives in pieces (a file decoded block by block): push() the
// samples in any pieces, then finish(). The windows go through the model in the same blocks as
// speech_probabilities() (which is built on this), so the probabilities are the same bit for bit;
// only one block's samples (about 8 s) are held, beside the probabilities (4 bytes per 32 ms).
class SpeechProbabilityStream {
 public:
  explicit SpeechProbabilityStream(const SileroVad& vad);  // keeps a reference: vad must outlive it
  ~SpeechProbabilityStream();
  SpeechProbabilityStream(const SpeechProbabilityStream&) = delete;
  SpeechProbabilityStream& operator=(const SpeechProbabilityStream&) = delete;

  void push(std::span<const float> samples);
  // The probability of every window, num_windows of them as speech_probabilities() takes it (the
  // windows past the samples see zeros). Ends the stream: push() and finish() throw after it.
  std::vector<float> finish(int64_t num_windows = -1);
  // Samples pushed so far.
  int64_t samples() const { return samples_; }

 private:
  void run_block(int count);  // the next `count` windows, whose samples are all in pending_
  void check_open() const;

  const SileroVad& vad_;
  SileroVadState state_;
  std::unique_ptr<SileroVad::Workspace> workspace_;
  std::vector<float> inputs_;   // the block's windows, each with its context
  std::vector<float> pending_;  // samples from the next window's context on (zeros before the audio)
  std::vector<float> probabilities_;
  int64_t samples_ = 0;
  bool finished_ = false;
};

}  // namespace auris
