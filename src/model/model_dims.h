// Hyper-parameters of a Whisper model, as openai/whisper's ModelDims, plus the alignment heads
// (decoder layer, head) used for word timestamps.
#pragma once

#include <utility>
#include <vector>

namespace auris {

struct ModelDims {
  int n_mels = 80;
  int n_audio_ctx = 1500;
  int n_audio_state = 0;
  int n_audio_head = 0;
  int n_audio_layer = 0;
  int n_vocab = 0;
  int n_text_ctx = 448;
  int n_text_state = 0;
  int n_text_head = 0;
  int n_text_layer = 0;
  std::vector<std::pair<int, int>> alignment_heads;  // (layer, head)

  bool is_multilingual() const { return n_vocab >= 51865; }
  // openai/whisper: num_languages = n_vocab - 51765 - int(is_multilingual)
  int num_languages() const { return n_vocab - 51765 - (is_multilingual() ? 1 : 0); }

  bool operator==(const ModelDims&) const = default;
};

// Derives every dimension from the canonical weight shapes (works for any loader); heads default to
// state/64 where the file does not say. Throws auris::Error when shapes are inconsistent.
class WeightMap;
ModelDims infer_dims(const WeightMap& weights, int n_audio_head = 0, int n_text_head = 0);

}  // namespace auris
