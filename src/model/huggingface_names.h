// openai/whisper state_dict names <-> Hugging Face Transformers WhisperForConditionalGeneration
// names ("encoder.blocks.0.attn.query.weight" <-> "model.encoder.layers.0.self_attn.q_proj.weight").
#pragma once

#include <string>

namespace auris {

// Throws auris::Error for a name that is not a canonical Whisper weight name.
std::string huggingface_name(const std::string& canonical);

}  // namespace auris
