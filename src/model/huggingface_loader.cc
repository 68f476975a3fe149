// Hugging Face Transformers Whisper directories: config.json, model.safetensors (or sharded with
// model.safetensors.index.json), vocab.json, and generation_config.json for the alignment heads.
#include <filesystem>
#include <map>
#include <memory>

#include "auris/error.h"
#include "model/huggingface_names.h"
#include "model/model_json.h"
#include "model/model_loader.h"
#include "model/model_registry.h"
#include "model/safetensors.h"
#include "model/weight_layout.h"

namespace fs = std::filesystem;

namespace auris {
namespace {

// The safetensors files of a checkpoint and which one holds each tensor.
class Checkpoint {
 public:
  explicit Checkpoint(const std::string& dir) {
    const fs::path single = fs::path(dir) / "model.safetensors";
    const fs::path index = fs::path(dir) / "model.safetensors.index.json";
    if (fs::exists(single)) {
      add(single.string());
      for (const std::string& name : files_.back()->names()) owner_.emplace(name, 0);
    } else if (fs::exists(index)) {
      const nlohmann::json json = read_json_file(index.string());
      if (!json.is_object() || !json.contains("weight_map") || !json["weight_map"].is_object())
        throw Error("'" + index.string() + "' has no \"weight_map\": the index file is corrupted");
      std::map<std::string, int> opened;
      for (const auto& [name, shard] : json["weight_map"].items()) {
        if (!shard.is_string()) throw Error("'" + index.string() + "' maps '" + name + "' to " + shard.dump());
        const std::string file = shard.get<std::string>();
        if (file.find('/') != std::string::npos || file.find("..") != std::string::npos)
          throw Error("'" + index.string() + "' names shard '" + file + "' outside the model directory");
        if (!opened.count(file)) {
          opened[file] = static_cast<int>(files_.size());
          add((fs::path(dir) / file).string());
        }
        owner_[name] = opened[file];
      }
    } else if (fs::exists(fs::path(dir) / "pytorch_model.bin")) {
      throw Error("'" + dir + "' holds only pytorch_model.bin; auris reads safetensors: download model.safetensors "
                  "from the same Hugging Face repository, or save the model with safe_serialization=True");
    } else {
      throw Error("'" + dir + "' has config.json but no model.safetensors or model.safetensors.index.json");
    }
  }

  const SafetensorsFile* find(const std::string& name) const {
    auto it = owner_.find(name);
    if (it == owner_.end()) return nullptr;
    const SafetensorsFile* file = files_[static_cast<size_t>(it->second)].get();
    return file->has(name) ? file : nullptr;
  }

  // The file holding the tensor, after checking that it exists, has this shape and can be read.
  const SafetensorsFile& locate(const std::string& name, const std::vector<int64_t>& shape) const {
    const SafetensorsFile* file = find(name);
    if (!file) throw Error("Hugging Face checkpoint is missing tensor '" + name + "': the download is incomplete or not a Whisper model");
    if (file->shape(name) != shape)
      throw Error("'" + file->path() + "' tensor '" + name + "' has shape " + shape_string(file->shape(name)) + ", expected " +
                  shape_string(shape) + " from config.json: the weights and the configuration do not match");
    file->check_readable(name);
    return *file;
  }

 private:
  void add(const std::string& path) {
    if (!fs::exists(path)) throw Error("Hugging Face shard '" + path + "' is missing: the download is incomplete");
    files_.push_back(std::make_unique<SafetensorsFile>(path));
  }

  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, int> owner_;
};

ModelDims dims_from_config(const std::string& path) {
  const nlohmann::json c = read_json_file(path);
  if (c.is_object() && c.contains("model_type") && c["model_type"] != "whisper")
    throw Error("'" + path + "' describes a " + c["model_type"].dump() + " model, not a Whisper model");
  ModelDims d;
  d.n_mels = json_int(c, "num_mel_bins", path, 1, 1024);
  d.n_vocab = json_int(c, "vocab_size", path, 51864, 51866);
  d.n_audio_state = d.n_text_state = json_int(c, "d_model", path, 1, 1 << 16);
  d.n_audio_layer = json_int(c, "encoder_layers", path, 1, 1024);
  d.n_text_layer = json_int(c, "decoder_layers", path, 1, 1024);
  d.n_audio_head = json_int(c, "encoder_attention_heads", path, 1, 1024);
  d.n_text_head = json_int(c, "decoder_attention_heads", path, 1, 1024);
  d.n_audio_ctx = json_int(c, "max_source_positions", path, 1, 1 << 20);
  d.n_text_ctx = json_int(c, "max_target_positions", path, 1, 1 << 20);
  if (d.n_audio_state % d.n_audio_head != 0 || d.n_text_state % d.n_text_head != 0)
    throw Error("'" + path + "' has d_model " + std::to_string(d.n_audio_state) + " not divisible by its attention heads");
  return d;
}

std::vector<std::string> tokens_by_id(const std::string& path, int n_needed) {
  const nlohmann::json vocab = read_json_file(path);
  if (!vocab.is_object()) throw Error("'" + path + "' should map tokens to ids");
  std::vector<std::string> tokens(static_cast<size_t>(n_needed));
  std::vector<bool> seen(static_cast<size_t>(n_needed), false);
  for (const auto& [token, id] : vocab.items()) {
    if (!id.is_number_integer()) throw Error("'" + path + "' maps '" + token + "' to " + id.dump() + ", not an id");
    const int64_t i = id.get<int64_t>();
    if (i < 0 || i >= n_needed) continue;
    tokens[static_cast<size_t>(i)] = token;
    seen[static_cast<size_t>(i)] = true;
  }
  for (int i = 0; i < n_needed; ++i)
    if (!seen[static_cast<size_t>(i)])
      throw Error("'" + path + "' has no token with id " + std::to_string(i) + ": the vocabulary belongs to another model");
  return tokens;
}

}  // namespace

ModelData load_huggingface(const std::string& dir) {
  const std::string config = (fs::path(dir) / "config.json").string();
  if (!fs::exists(config)) throw Error("'" + dir + "' has no config.json: it is not a Hugging Face model directory");
  ModelDims dims = dims_from_config(config);
  const auto checkpoint = std::make_shared<const Checkpoint>(dir);

  ModelData out;
  for (const WeightSpec& spec : expected_weights(dims)) {
    const std::string name = huggingface_name(spec.name);
    checkpoint->locate(name, spec.shape);
    // Decoded when the engine takes it.
    out.weights.put_deferred(spec.name, spec.shape, [checkpoint, name] { return checkpoint->find(name)->read(name); });
  }
  if (checkpoint->find("proj_out.weight") &&
      checkpoint->locate("proj_out.weight", {dims.n_vocab, dims.n_text_state}).read("proj_out.weight") !=
          out.weights.get("decoder.token_embedding.weight"))
    throw Error("'" + dir + "' has an output projection (proj_out.weight) that differs from the token embedding; "
                "Whisper ties the two, so this checkpoint is not supported");
  try {
    out.dims = infer_dims(out.weights, dims.n_audio_head, dims.n_text_head);
  } catch (const Error& e) {
    throw Error("'" + dir + "': " + e.what());
  }

  const std::string generation = (fs::path(dir) / "generation_config.json").string();
  out.dims.alignment_heads = alignment_heads_or_default(read_optional_json_object(generation), out.dims, generation);

  const std::string vocab = (fs::path(dir) / "vocab.json").string();
  if (!fs::exists(vocab)) throw Error("'" + dir + "' has no vocab.json: download it from the model's Hugging Face repository");
  const int n_regular = regular_token_count(out.dims);
  out.vocab = regular_vocab_from_unicode(tokens_by_id(vocab, n_regular), n_regular, vocab);
  return out;
}

}  // namespace auris
