#include "model/random_model.h"

#include <cmath>

#include "auris/error.h"
#include "model/weight_layout.h"

namespace auris {

ModelData random_model(const RegistryModel& shape, std::vector<std::string> vocab, uint32_t seed) {
  ModelData m;
  ModelDims& d = m.dims;
  d.n_mels = shape.n_mels;
  d.n_vocab = shape.n_vocab;
  d.n_audio_state = d.n_text_state = shape.n_state;
  d.n_audio_head = d.n_text_head = shape.n_state / 64;
  d.n_audio_layer = shape.n_audio_layer;
  d.n_text_layer = shape.n_text_layer;
  d.alignment_heads = shape.alignment_heads.empty() ? default_alignment_heads(d) : shape.alignment_heads;
  if (static_cast<int>(vocab.size()) != regular_token_count(d))
    throw Error("the vocabulary has " + std::to_string(vocab.size()) + " regular tokens, " + shape.name + " needs " +
                std::to_string(regular_token_count(d)) + ": take it from a " +
                (d.is_multilingual() ? "multilingual" : "English-only") + " model");
  // A 32-bit LCG: a billion weights in seconds; uniform on [-a, a] has standard deviation a/sqrt(3).
  uint32_t state = seed * 2654435761u + 1;
  const float a = 0.02f * std::sqrt(3.0f);
  for (const WeightSpec& spec : expected_weights(d)) {
    Tensor t(spec.shape);
    const bool norm = spec.name.find("ln") != std::string::npos;
    const bool bias = spec.name.ends_with(".bias");
    if (norm && !bias) {
      std::fill(t.data.begin(), t.data.end(), 1.0f);
    } else if (!bias) {
      for (float& x : t.data) {
        state = state * 1664525u + 1013904223u;
        x = (static_cast<float>(state >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f) * a;
      }
    }
    m.weights.put(spec.name, std::move(t));
  }
  m.vocab = std::move(vocab);
  return m;
}

}  // namespace auris
