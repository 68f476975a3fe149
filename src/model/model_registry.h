// The official Whisper checkpoints by name ("tiny.en", "large-v3-turbo", "distil-large-v3", ...):
// where each lives on the Hugging Face Hub in every format auris reads, its shape, and openai's
// alignment heads. Used to resolve model names for download and to fill in what a file leaves out
// (ggml files do not store alignment heads).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/model_dims.h"

namespace auris {

struct RegistryModel {
  std::string name;           // "tiny.en"
  std::string hf_repo;        // Transformers checkpoint: "openai/whisper-tiny.en"
  std::string ct2_repo;       // CTranslate2 (faster-whisper) checkpoint: "Systran/faster-whisper-tiny.en"
  std::string ggml_repo;      // whisper.cpp ggml file: repo "ggerganov/whisper.cpp" ...
  std::string ggml_file;      // ... and file "ggml-tiny.en.bin"; both "" where none is published
  // Shape signature (what tells checkpoints apart in a file without a name).
  int n_mels, n_vocab, n_state, n_audio_layer, n_text_layer;
  std::vector<std::pair<int, int>> alignment_heads;  // openai's (layer, head); empty: the default rule
};

// Every known model, in size order.
const std::vector<RegistryModel>& registry_models();
// The model of that name (aliases "large" = large-v3 and "turbo" = large-v3-turbo, as openai), or nullopt.
std::optional<RegistryModel> find_registry_model(const std::string& name);
// Like find_registry_model(), throwing auris::Error that lists the known names.
RegistryModel registry_model(const std::string& name);
// Silero VAD as whisper.cpp publishes it in its ggml VAD format (models/download-vad-model.sh):
// `auris download silero-vad` fetches it into the model cache.
struct RegistryVadModel {
  std::string name;       // "silero-vad"
  std::string ggml_repo;  // "ggml-org/whisper-vad"
  std::string ggml_file;  // "ggml-silero-v6.2.0.bin"
};
// The VAD model of that name ("silero-vad", or whisper.cpp's "silero-v6.2.0"), or nullopt.
std::optional<RegistryVadModel> find_vad_model(const std::string& name);

// "https://huggingface.co/<repo>/resolve/main/<file>".
std::string hub_file_url(const std::string& repo, const std::string& file);

// Alignment heads for a model file that does not name them: openai's heads of the unique registry
// model with these dims, else openai's default (all heads of the last half of the decoder layers).
std::vector<std::pair<int, int>> default_alignment_heads(const ModelDims& dims);

}  // namespace auris
