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
  // Several windows in one pass: every product multiplies the rows of all of them at once, and each
  // window attends over its own frames. outs[i] is windows[i]'s output, as forward() gives it.
  void forward(const std::vector<const LogMel*>& windows, const std::vector<std::vector<float>*>& outs);

 private:
  void check(const LogMel& window) const;
  struct BlockOps;  // the blocks' ops (layer_sequence.h) over these workspaces

  const WhisperModel& model_;
  // Workspaces reused across windows: no allocation per window after the first; the large ones on
  // huge pages (util/huge_pages.h).
  std::vector<float> columns_, conv_out_, stacked_, normed_, qkv_, attended_, hidden_, scratch_;
};

}  // namespace auris
