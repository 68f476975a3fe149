// Writes a ModelData as a Hugging Face Transformers Whisper directory: config.json,
// generation_config.json (alignment heads, special token ids), model.safetensors (tied proj_out
// left out, as Transformers saves it), vocab.json and merges.txt.
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "auris/error.h"
#include "model/bpe_merges.h"
#include "model/huggingface_names.h"
#include "model/model_loader.h"
#include "model/safetensors.h"
#include "model/weight_layout.h"
#include "tokenizer/byte_unicode.h"

namespace fs = std::filesystem;

namespace auris {
namespace {

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) throw Error("cannot write '" + path.string() + "': check the directory is writable and has space");
}

nlohmann::json config_json(const ModelDims& d, int eot, bool half) {
  const int sot = eot + 1;
  return {
      {"_name_or_path", "auris"},
      {"architectures", {"WhisperForConditionalGeneration"}},
      {"model_type", "whisper"},
      {"activation_function", "gelu"},
      {"d_model", d.n_audio_state},
      {"encoder_layers", d.n_audio_layer},
      {"encoder_attention_heads", d.n_audio_head},
      {"encoder_ffn_dim", 4 * d.n_audio_state},
      {"decoder_layers", d.n_text_layer},
      {"decoder_attention_heads", d.n_text_head},
      {"decoder_ffn_dim", 4 * d.n_text_state},
      {"num_hidden_layers", d.n_audio_layer},
      {"num_mel_bins", d.n_mels},
      {"vocab_size", d.n_vocab},
      {"max_source_positions", d.n_audio_ctx},
      {"max_target_positions", d.n_text_ctx},
      {"max_length", d.n_text_ctx},
      {"scale_embedding", false},
      {"tie_word_embeddings", true},
      {"bos_token_id", eot},
      {"eos_token_id", eot},
      {"pad_token_id", eot},
      {"decoder_start_token_id", sot},
      {"is_encoder_decoder", true},
      {"use_cache", true},
      {"torch_dtype", half ? "float16" : "float32"},
  };
}

nlohmann::json generation_config_json(const ModelDims& d, int eot) {
  const int sot = eot + 1;
  const int translate = sot + 1 + d.num_languages();
  nlohmann::json heads = nlohmann::json::array();
  for (const auto& [layer, head] : d.alignment_heads) heads.push_back({layer, head});
  return {
      {"alignment_heads", heads},
      {"bos_token_id", eot},
      {"eos_token_id", eot},
      {"pad_token_id", eot},
      {"decoder_start_token_id", sot},
      {"is_multilingual", d.is_multilingual()},
      {"max_length", d.n_text_ctx},
      {"begin_suppress_tokens", {220, eot}},
      {"no_timestamps_token_id", translate + 5},
      {"task_to_id", {{"translate", translate}, {"transcribe", translate + 1}}},
  };
}

}  // namespace

void write_huggingface(const ModelData& model, const std::string& dir, bool half) {
  validate_weights(model.weights, model.dims, "model to write");
  const int n_regular = regular_token_count(model.dims);
  if (static_cast<int>(model.vocab.size()) != n_regular)
    throw Error("model to write has " + std::to_string(model.vocab.size()) + " vocabulary tokens, expected " + std::to_string(n_regular));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir)) throw Error("cannot create output directory '" + dir + "': " + ec.message());

  std::vector<std::pair<std::string, const Tensor*>> tensors;
  std::vector<std::string> names;
  for (const WeightSpec& spec : expected_weights(model.dims)) names.push_back(huggingface_name(spec.name));
  size_t i = 0;
  for (const WeightSpec& spec : expected_weights(model.dims)) tensors.emplace_back(names[i++], &model.weights.get(spec.name));
  write_safetensors((fs::path(dir) / "model.safetensors").string(), tensors, half);

  write_text(fs::path(dir) / "config.json", config_json(model.dims, n_regular, half).dump(2) + "\n");
  write_text(fs::path(dir) / "generation_config.json", generation_config_json(model.dims, n_regular).dump(2) + "\n");

  nlohmann::json vocab = nlohmann::json::object();
  for (int id = 0; id < n_regular; ++id) vocab[bytes_to_gpt2_unicode(model.vocab[static_cast<size_t>(id)])] = id;
  vocab["<|endoftext|>"] = n_regular;
  write_text(fs::path(dir) / "vocab.json", vocab.dump() + "\n");

  std::string merges = "#version: 0.2\n";
  for (const auto& [left, right] : derive_bpe_merges(model.vocab))
    merges += bytes_to_gpt2_unicode(left) + " " + bytes_to_gpt2_unicode(right) + "\n";
  write_text(fs::path(dir) / "merges.txt", merges);
}

}  // namespace auris
