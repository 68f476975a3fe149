#include "model/model_dims.h"

#include <string>

#include "auris/error.h"
#include "model/weights.h"

namespace auris {
namespace {

int count_blocks(const WeightMap& weights, const std::string& prefix) {
  int n = 0;
  while (weights.has(prefix + std::to_string(n) + ".attn_ln.weight")) ++n;
  return n;
}

int heads_or_default(int heads, int state) {
  if (heads > 0) return heads;
  if (state % 64 != 0) throw Error("cannot infer the number of attention heads for width " + std::to_string(state));
  return state / 64;
}

}  // namespace

ModelDims infer_dims(const WeightMap& weights, int n_audio_head, int n_text_head) {
  ModelDims d;
  const std::vector<int64_t>& conv1 = weights.shape("encoder.conv1.weight");
  if (conv1.size() != 3 || conv1[2] != 3) throw Error("encoder.conv1.weight has shape " + shape_string(conv1) + ", expected [d, n_mels, 3]");
  d.n_audio_state = static_cast<int>(conv1[0]);
  d.n_mels = static_cast<int>(conv1[1]);
  const std::vector<int64_t>& audio_pos = weights.shape("encoder.positional_embedding");
  if (audio_pos.size() != 2 || audio_pos[1] != d.n_audio_state) throw Error("encoder.positional_embedding has shape " + shape_string(audio_pos));
  d.n_audio_ctx = static_cast<int>(audio_pos[0]);
  d.n_audio_layer = count_blocks(weights, "encoder.blocks.");
  d.n_audio_head = heads_or_default(n_audio_head, d.n_audio_state);

  const std::vector<int64_t>& embedding = weights.shape("decoder.token_embedding.weight");
  if (embedding.size() != 2) throw Error("decoder.token_embedding.weight has shape " + shape_string(embedding));
  d.n_vocab = static_cast<int>(embedding[0]);
  d.n_text_state = static_cast<int>(embedding[1]);
  const std::vector<int64_t>& text_pos = weights.shape("decoder.positional_embedding");
  if (text_pos.size() != 2 || text_pos[1] != d.n_text_state) throw Error("decoder.positional_embedding has shape " + shape_string(text_pos));
  d.n_text_ctx = static_cast<int>(text_pos[0]);
  d.n_text_layer = count_blocks(weights, "decoder.blocks.");
  d.n_text_head = heads_or_default(n_text_head, d.n_text_state);

  if (d.n_audio_layer == 0 || d.n_text_layer == 0) throw Error("model has no encoder or decoder blocks: not a Whisper checkpoint");
  if (d.n_vocab < 51864 || d.n_vocab > 51866) throw Error("vocabulary size " + std::to_string(d.n_vocab) + " is not a Whisper vocabulary (51864..51866)");
  if (d.n_audio_state % d.n_audio_head != 0 || d.n_text_state % d.n_text_head != 0) throw Error("model width is not divisible by its number of heads");
  return d;
}

}  // namespace auris
