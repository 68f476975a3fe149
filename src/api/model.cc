#include "auris/model.h"

#include <cstdlib>
#include <filesystem>

#include "api/cuda_plugin.h"
#include "api/model_impl.h"
#include "auris/error.h"
#include "model/model_download.h"
#include "model/model_loader.h"
#include "model/model_registry.h"
#include "whisper/kv_cache.h"
#include "util/shown_text.h"

namespace fs = std::filesystem;

namespace auris {

std::string model_cache_dir() {
  if (const char* env = std::getenv("AURIS_MODEL_DIR"); env && *env) return env;
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : "/tmp") / ".cache" / "auris" / "models").string();
}

namespace {

// Whether path exists; a path the system refuses (too long, a symlink loop, no permission) is the
// caller's to fix, not an internal error.
bool model_path_exists(const fs::path& path) {
  std::error_code error;
  const bool exists = fs::exists(path, error);
  if (error) throw Error("cannot use the model path '" + shown(path.string()) + "': " + error.message());
  return exists;
}

}  // namespace

std::string resolve_model_path(const std::string& path_or_name) {
  if (path_or_name.empty()) throw Error("no model given: pass a model name (tiny.en, base, ...) or a model path");
  if (model_path_exists(path_or_name)) return path_or_name;
  if (is_hub_repo_id(path_or_name)) {
    const std::string cached = hub_repo_cache_path(path_or_name, model_cache_dir());
    if (model_path_exists(cached)) return cached;
    throw Error("model '" + shown(path_or_name) + "' is neither a path nor in the cache (" + shown(cached) +
                "): run `auris download " + shown(path_or_name) + "` to fetch the hub repository's model, or pass "
                "the path of a model directory or ggml file");
  }
  if (path_or_name.find('/') != std::string::npos)
    throw Error("model path '" + shown(path_or_name) + "' does not exist: pass a CTranslate2 or Hugging Face model "
                "directory, a whisper.cpp ggml file, or a model name");
  const fs::path cached = fs::path(model_cache_dir()) / path_or_name;
  if (model_path_exists(cached)) return cached.string();
  if (!find_registry_model(path_or_name))
    throw Error("model '" + shown(path_or_name) + "' is neither a path nor a model name auris knows (`auris models` "
                "lists them: tiny.en, base, small, ..., large-v3-turbo)");
  throw Error("model '" + shown(path_or_name) + "' not found (looked for the path and for " + shown(cached.string()) +
              "): run `auris download " + shown(path_or_name) + "`, or scripts/fetch_models.sh for the test models, "
              "or pass the path of a model directory or ggml file");
}

namespace {

const char* format_name(ModelFormat f) {
  switch (f) {
    case ModelFormat::kCTranslate2: return "ctranslate2";
    case ModelFormat::kHuggingFace: return "huggingface";
    case ModelFormat::kGgml: return "ggml";
  }
  return "unknown";
}

}  // namespace

ComputeType parse_compute_type(const std::string& name) {
  if (name == "float32") return ComputeType::kFloat32;
  if (name == "bfloat16") return ComputeType::kBfloat16;
  if (name == "int8") return ComputeType::kInt8;
  if (name == "float16") return ComputeType::kFloat16;
  if (name == "int8_bfloat16") return ComputeType::kInt8Bfloat16;
  throw Error("unknown compute type '" + name +
              "': choose float32, float16, bfloat16, int8 or int8_bfloat16 (the int8 types on the CPU only)");
}

std::string compute_type_name(ComputeType type) {
  switch (type) {
    case ComputeType::kFloat32: return "float32";
    case ComputeType::kBfloat16: return "bfloat16";
    case ComputeType::kInt8: return "int8";
    case ComputeType::kFloat16: return "float16";
    case ComputeType::kInt8Bfloat16: return "int8_bfloat16";
  }
  return "unknown";
}

Device parse_device(const std::string& name) {
  if (name == "cpu") return Device::kCpu;
  if (name == "cuda") return Device::kCuda;
  throw Error("unknown device '" + name + "': choose cpu or cuda");
}

std::shared_ptr<const Model> Model::load(const std::string& path_or_name, ComputeType compute_type, Device device) {
  if (device == Device::kCuda) {
    if (has_int8_weights(compute_type))
      throw Error("compute type " + compute_type_name(compute_type) +
                  " runs on the CPU only: on CUDA use float16, bfloat16 or float32");
    cuda_backend();  // before reading the model: the error names what is missing
  }
  const std::string path = resolve_model_path(path_or_name);
  const ModelFormat format = detect_model_format(path);
  ModelData data = load_model_data(path);
  ModelInfo info;
  info.path = path;
  info.format = format_name(format);
  info.n_mels = data.dims.n_mels;
  info.n_vocab = data.dims.n_vocab;
  info.n_audio_layer = data.dims.n_audio_layer;
  info.n_text_layer = data.dims.n_text_layer;
  info.n_audio_state = data.dims.n_audio_state;
  info.n_text_state = data.dims.n_text_state;
  info.multilingual = data.dims.is_multilingual();
  info.compute_type = compute_type;
  info.device = device;
  const int num_languages = data.dims.num_languages();
  Tokenizer tokenizer(std::move(data.vocab), num_languages);
  if (tokenizer.n_vocab() != data.dims.n_vocab)
    throw Error("model vocabulary (" + std::to_string(tokenizer.n_vocab()) + " tokens) does not match its embedding (" +
                std::to_string(data.dims.n_vocab) + " rows): the vocabulary file belongs to another model");
  std::shared_ptr<const CudaWeights> cuda_weights;
  WhisperModel whisper;
  if (device == Device::kCuda) {
    const WhisperModel host = assemble_whisper_model(std::move(data));  // fp32, freed once uploaded
    cuda_weights = cuda_backend().upload(host, compute_type);
    whisper.dims = host.dims;
    whisper.compute_type = compute_type;
  } else {
    whisper = build_whisper_model(std::move(data), compute_type);
  }
  info.decode_weight_bytes = decode_weight_bytes(whisper, cuda_weights.get());
  // The GPU keeps the reduced types' cache in fp16.
  info.cross_kv_cache_bytes =
      device == Device::kCuda ? static_cast<size_t>(whisper.dims.n_audio_ctx) * whisper.dims.n_text_layer * 2 *
                                    whisper.dims.n_text_state *
                                    (compute_type == ComputeType::kFloat32 ? sizeof(float) : sizeof(uint16_t))
                              : CrossKVCache::storage_bytes(whisper.dims, compute_type);
  auto impl = std::unique_ptr<Impl>(new Impl{std::move(info), std::move(whisper), std::move(tokenizer), std::move(cuda_weights)});
  return std::shared_ptr<const Model>(new Model(std::move(impl)));
}

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;
const ModelInfo& Model::info() const { return impl_->info; }

}  // namespace auris
