// Loading a Whisper model: a CTranslate2 directory, a Hugging Face directory, a whisper.cpp ggml
// file, or the name of a model in the local cache ("tiny.en" -> ~/.cache/auris/models/tiny.en).
#pragma once

#include <memory>
#include <string>

namespace auris {

struct ModelInfo {
  std::string path;
  std::string format;  // "ctranslate2", "huggingface", "ggml"
  int n_mels = 0;
  int n_vocab = 0;
  int n_audio_layer = 0;
  int n_text_layer = 0;
  int n_audio_state = 0;
  int n_text_state = 0;
  bool multilingual = false;
};

class Model {
 public:
  // Throws auris::Error when the model is missing or unreadable, with a hint how to get it.
  static std::shared_ptr<const Model> load(const std::string& path_or_name);
  ~Model();

  const ModelInfo& info() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The directory holding cached models: $AURIS_MODEL_DIR, else ~/.cache/auris/models.
std::string model_cache_dir();
// A path that exists is returned as is; otherwise the name is looked up in the cache.
// Throws auris::Error saying how to fetch the model when it is nowhere.
std::string resolve_model_path(const std::string& path_or_name);

}  // namespace auris
