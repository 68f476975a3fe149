// A model with a published checkpoint's shape and random weights, for timing runs that need the real
// shapes but not the real weights (the GPU benchmark's large-v3 and large-v3-turbo, which CI cannot
// download): `auris convert VOCAB_MODEL --random-weights large-v3 --to hf -o DIR`. The vocabulary
// comes from a real model, so the tokenizer works.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model_data.h"
#include "model/model_registry.h"

namespace auris {

// Linear weights uniform with standard deviation 0.02, layer norms 1 and 0, biases 0; deterministic
// for a seed. vocab: a real model's regular tokens (50256 English-only, 50257 multilingual); throws
// auris::Error when it does not fit the shape's vocabulary.
ModelData random_model(const RegistryModel& shape, std::vector<std::string> vocab, uint32_t seed = 1);

}  // namespace auris
