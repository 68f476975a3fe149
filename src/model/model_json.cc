#include "model/model_json.h"

#include <filesystem>

#include "auris/error.h"
#include "model/model_registry.h"
#include "tokenizer/byte_unicode.h"
#include "util/bounded_json.h"
#include "util/mapped_file.h"
#include "util/shown_text.h"

namespace auris {

nlohmann::json read_json_file(const std::string& path) {
  const std::string text = read_text_file(path);
  try {
    return parse_bounded_json(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error("'" + path + "' is not valid JSON (" + shown(e.what()) + "): the download may be incomplete");
  }
}

nlohmann::json read_optional_json_object(const std::string& path) {
  if (!std::filesystem::exists(path)) return nlohmann::json::object();
  nlohmann::json json = read_json_file(path);
  if (!json.is_object())
    throw Error("'" + path + "' is not a JSON object, as a model's configuration is: the file is damaged; "
                "download the model again");
  return json;
}

std::vector<std::pair<int, int>> alignment_heads_or_default(const nlohmann::json& side_file, const ModelDims& dims,
                                                            const std::string& file) {
  if (!side_file.contains("alignment_heads")) return default_alignment_heads(dims);
  return parse_alignment_heads(side_file["alignment_heads"], dims.n_text_layer, dims.n_text_head, file);
}

int json_int(const nlohmann::json& object, const std::string& key, const std::string& file, int min, int max) {
  if (!object.is_object() || !object.contains(key))
    throw Error("'" + file + "' has no \"" + key + "\": it is not a Whisper model configuration");
  const nlohmann::json& value = object.at(key);
  if (!value.is_number_integer() || value.get<int64_t>() < min || value.get<int64_t>() > max)
    throw Error("'" + file + "' has \"" + key + "\": " + value.dump() + ", expected an integer in [" +
                std::to_string(min) + ", " + std::to_string(max) + "]");
  return static_cast<int>(value.get<int64_t>());
}

std::vector<std::pair<int, int>> parse_alignment_heads(const nlohmann::json& heads, int n_text_layer, int n_text_head,
                                                       const std::string& file) {
  const std::string bad = "'" + file + "' has malformed \"alignment_heads\" ";
  if (!heads.is_array()) throw Error(bad + "(expected a list of [layer, head] pairs)");
  std::vector<std::pair<int, int>> out;
  for (const nlohmann::json& pair : heads) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_integer() || !pair[1].is_number_integer())
      throw Error(bad + pair.dump() + " (expected [layer, head])");
    const int64_t layer = pair[0].get<int64_t>(), head = pair[1].get<int64_t>();
    if (layer < 0 || layer >= n_text_layer || head < 0 || head >= n_text_head)
      throw Error(bad + pair.dump() + ": the decoder has " + std::to_string(n_text_layer) + " layers of " +
                  std::to_string(n_text_head) + " heads");
    out.emplace_back(static_cast<int>(layer), static_cast<int>(head));
  }
  return out;
}

std::vector<std::string> regular_vocab_from_unicode(const std::vector<std::string>& tokens, int n_regular,
                                                    const std::string& file) {
  if (static_cast<int>(tokens.size()) < n_regular)
    throw Error("'" + file + "' has " + std::to_string(tokens.size()) + " tokens, but the model needs " +
                std::to_string(n_regular) + " regular tokens: the vocabulary belongs to another model");
  if (static_cast<int>(tokens.size()) > n_regular && tokens[static_cast<size_t>(n_regular)] != "<|endoftext|>")
    throw Error("'" + file + "' has '" + tokens[static_cast<size_t>(n_regular)] + "' at id " +
                std::to_string(n_regular) + " where <|endoftext|> belongs: the vocabulary belongs to another model");
  std::vector<std::string> vocab;
  vocab.reserve(static_cast<size_t>(n_regular));
  for (int i = 0; i < n_regular; ++i) {
    try {
      vocab.push_back(gpt2_unicode_to_bytes(tokens[static_cast<size_t>(i)]));
    } catch (const Error& e) {
      throw Error("'" + file + "' token " + std::to_string(i) + ": " + e.what());
    }
  }
  return vocab;
}

}  // namespace auris
