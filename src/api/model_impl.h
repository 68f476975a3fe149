// What a loaded auris::Model holds: the runtime weights and the tokenizer built from the model's own
// vocabulary.
#pragma once

#include "auris/model.h"
#include "tokenizer/tokenizer.h"
#include "whisper/whisper_model.h"

namespace auris {

struct Model::Impl {
  ModelInfo info;
  WhisperModel weights;
  Tokenizer tokenizer;
};

}  // namespace auris
