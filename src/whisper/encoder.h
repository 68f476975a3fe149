// The audio encoder: conv1 + GELU, conv2 (stride 2) + GELU, + sinusoidal positions, pre-LN
// transformer blocks, final layer norm. One 30-s window of log-mel in, [n_audio_ctx x d] out.
#pragma once

#include <vector>

#include "audio/mel.h"
#include "whisper/whisper_model.h"

namespace auris {

class Encoder {
 public:
  explicit Encoder(const WhisperModel& model) : model_(model) {}

  // window: [n_mels x 3000] log-mel. out: resized to [n_audio_ctx x n_audio_state].
  // Throws auris::Error when the window's shape does not fit the model.
  void forward(const LogMel& window, std::vector<float>& out);

 private:
  void block(const EncoderBlock& blk, float* x);

  const WhisperModel& model_;
  // Workspaces reused across windows: no allocation per window after the first; the large ones on
  // huge pages (util/huge_pages.h).
  std::vector<float> columns_, conv_out_, normed_, qkv_, attended_, hidden_, scratch_;
};

}  // namespace auris
