// The canonical weight layout of a Whisper model for given dimensions: every openai/whisper
// state_dict name with its shape. Loaders check what they read against it; writers walk it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/model_dims.h"
#include "model/weights.h"

namespace auris {

struct WeightSpec {
  std::string name;
  std::vector<int64_t> shape;
};

// All tensors of a model with these dims, encoder first, in a stable order.
std::vector<WeightSpec> expected_weights(const ModelDims& dims);

// Throws auris::Error naming the first tensor that is missing, has the wrong shape, or is not part of
// a Whisper model (what names `source`, e.g. the file path).
void validate_weights(const WeightMap& weights, const ModelDims& dims, const std::string& source);

// Number of regular (non-special) BPE tokens: 50257 for multilingual vocabularies, 50256 otherwise.
int regular_token_count(const ModelDims& dims);

}  // namespace auris
