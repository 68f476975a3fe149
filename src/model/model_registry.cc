#include "model/model_registry.h"

#include "auris/error.h"

namespace auris {
namespace {

constexpr const char* kGgmlRepo = "ggerganov/whisper.cpp";

RegistryModel openai(const std::string& name, const std::string& hf_name, int n_mels, int n_vocab, int n_state,
                     int n_audio_layer, int n_text_layer, std::vector<std::pair<int, int>> heads) {
  return {name, "openai/whisper-" + hf_name, "", kGgmlRepo, "ggml-" + name + ".bin", n_mels, n_vocab, n_state,
          n_audio_layer, n_text_layer, std::move(heads)};
}

std::vector<RegistryModel> build() {
  // Alignment heads: tools/reference/make_alignment_heads.py (openai/whisper _ALIGNMENT_HEADS).
  std::vector<RegistryModel> m = {
      openai("tiny.en", "tiny.en", 80, 51864, 384, 4, 4, {{1, 0}, {2, 0}, {2, 5}, {3, 0}, {3, 1}, {3, 2}, {3, 3}, {3, 4}}),
      openai("tiny", "tiny", 80, 51865, 384, 4, 4, {{2, 2}, {3, 0}, {3, 2}, {3, 3}, {3, 4}, {3, 5}}),
      openai("base.en", "base.en", 80, 51864, 512, 6, 6, {{3, 3}, {4, 7}, {5, 1}, {5, 5}, {5, 7}}),
      openai("base", "base", 80, 51865, 512, 6, 6, {{3, 1}, {4, 2}, {4, 3}, {4, 7}, {5, 1}, {5, 2}, {5, 4}, {5, 6}}),
      openai("small.en", "small.en", 80, 51864, 768, 12, 12,
             {{6, 6}, {7, 0}, {7, 3}, {7, 8}, {8, 2}, {8, 5}, {8, 7}, {9, 0}, {9, 4}, {9, 8}, {9, 10}, {10, 0}, {10, 1},
              {10, 2}, {10, 3}, {10, 6}, {10, 11}, {11, 2}, {11, 4}}),
      openai("small", "small", 80, 51865, 768, 12, 12,
             {{5, 3}, {5, 9}, {8, 0}, {8, 4}, {8, 7}, {8, 8}, {9, 0}, {9, 7}, {9, 9}, {10, 5}}),
      openai("medium.en", "medium.en", 80, 51864, 1024, 24, 24,
             {{11, 4}, {14, 1}, {14, 12}, {14, 14}, {15, 4}, {16, 0}, {16, 4}, {16, 9}, {17, 12}, {17, 14}, {18, 7},
              {18, 10}, {18, 15}, {20, 0}, {20, 3}, {20, 9}, {20, 14}, {21, 12}}),
      openai("medium", "medium", 80, 51865, 1024, 24, 24, {{13, 15}, {15, 4}, {15, 15}, {16, 1}, {20, 0}, {23, 4}}),
      // openai/whisper-large on the Hub is large-v1.
      openai("large-v1", "large", 80, 51865, 1280, 32, 32,
             {{9, 19}, {11, 2}, {11, 4}, {11, 17}, {22, 7}, {22, 11}, {22, 17}, {23, 2}, {23, 15}}),
      openai("large-v2", "large-v2", 80, 51865, 1280, 32, 32,
             {{10, 12}, {13, 17}, {16, 11}, {16, 12}, {16, 13}, {17, 15}, {17, 16}, {18, 4}, {18, 11}, {18, 19},
              {19, 11}, {21, 2}, {21, 3}, {22, 3}, {22, 9}, {22, 12}, {23, 5}, {23, 7}, {23, 13}, {25, 5}, {26, 1},
              {26, 12}, {27, 15}}),
      openai("large-v3", "large-v3", 128, 51866, 1280, 32, 32,
             {{7, 0}, {10, 17}, {12, 18}, {13, 12}, {16, 1}, {17, 14}, {19, 11}, {21, 4}, {24, 1}, {25, 6}}),
      openai("large-v3-turbo", "large-v3-turbo", 128, 51866, 1280, 32, 4,
             {{2, 4}, {2, 11}, {3, 3}, {3, 6}, {3, 11}, {3, 14}}),
      // Distil-Whisper: no openai alignment heads, so the default rule applies.
      {"distil-small.en", "distil-whisper/distil-small.en", "Systran/faster-distil-whisper-small.en", "", "", 80,
       51864, 768, 12, 4, {}},
      {"distil-medium.en", "distil-whisper/distil-medium.en", "Systran/faster-distil-whisper-medium.en", "", "", 80,
       51864, 1024, 24, 2, {}},
      {"distil-large-v2", "distil-whisper/distil-large-v2", "Systran/faster-distil-whisper-large-v2", "", "", 80,
       51865, 1280, 32, 2, {}},
      {"distil-large-v3", "distil-whisper/distil-large-v3", "Systran/faster-distil-whisper-large-v3",
       "distil-whisper/distil-large-v3-ggml", "ggml-distil-large-v3.bin", 128, 51866, 1280, 32, 2, {}},
      {"distil-large-v3.5", "distil-whisper/distil-large-v3.5", "distil-whisper/distil-large-v3.5-ct2", "", "", 128,
       51866, 1280, 32, 2, {}},
  };
  // faster-whisper's CTranslate2 conversions (faster_whisper/utils.py _MODELS).
  for (RegistryModel& model : m) {
    if (!model.ct2_repo.empty()) continue;
    model.ct2_repo = model.name == "large-v3-turbo" ? "mobiuslabsgmbh/faster-whisper-large-v3-turbo"
                                                    : "Systran/faster-whisper-" + model.name;
  }
  return m;
}

}  // namespace

const std::vector<RegistryModel>& registry_models() {
  static const std::vector<RegistryModel> models = build();
  return models;
}

std::optional<RegistryModel> find_registry_model(const std::string& name) {
  const std::string canonical = name == "large" ? "large-v3" : name == "turbo" ? "large-v3-turbo" : name;
  for (const RegistryModel& model : registry_models())
    if (model.name == canonical) return model;
  return std::nullopt;
}

RegistryModel registry_model(const std::string& name) {
  if (auto model = find_registry_model(name)) return *model;
  std::string known;
  for (const RegistryModel& model : registry_models()) known += (known.empty() ? "" : ", ") + model.name;
  throw Error("unknown model name '" + name + "': known models are " + known +
              " (or pass the path of a model file or directory)");
}

std::optional<RegistryVadModel> find_vad_model(const std::string& name) {
  if (name != "silero-vad" && name != "silero-v6.2.0") return std::nullopt;
  return RegistryVadModel{"silero-vad", "ggml-org/whisper-vad", "ggml-silero-v6.2.0.bin"};
}

std::string hub_file_url(const std::string& repo, const std::string& file) {
  return "https://huggingface.co/" + repo + "/resolve/main/" + file;
}

std::vector<std::pair<int, int>> default_alignment_heads(const ModelDims& dims) {
  const RegistryModel* match = nullptr;
  int matches = 0;
  for (const RegistryModel& model : registry_models()) {
    if (model.n_mels == dims.n_mels && model.n_vocab == dims.n_vocab && model.n_state == dims.n_text_state &&
        model.n_audio_layer == dims.n_audio_layer && model.n_text_layer == dims.n_text_layer) {
      match = &model;
      ++matches;
    }
  }
  // large-v1 and large-v2 share every dimension: neither can be assumed.
  if (matches == 1 && !match->alignment_heads.empty()) return match->alignment_heads;
  std::vector<std::pair<int, int>> heads;
  for (int layer = dims.n_text_layer / 2; layer < dims.n_text_layer; ++layer)
    for (int head = 0; head < dims.n_text_head; ++head) heads.emplace_back(layer, head);
  return heads;
}

}  // namespace auris
