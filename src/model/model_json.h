// JSON side files of model directories (config.json, generation_config.json, vocab.json,
// vocabulary.json): parsing with errors that name the file, and the pieces loaders share.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "model/model_dims.h"

namespace auris {

// Parses a JSON file; throws auris::Error naming the file when it is missing or not valid JSON.
nlohmann::json read_json_file(const std::string& path);

// A side file that may be absent (then an empty object), holding alignment heads and other settings:
// one that is there but not a JSON object is damaged, and the error says to download again.
nlohmann::json read_optional_json_object(const std::string& path);

// Alignment heads from a side file's "alignment_heads", else the defaults for these dimensions.
std::vector<std::pair<int, int>> alignment_heads_or_default(const nlohmann::json& side_file, const ModelDims& dims,
                                                            const std::string& file);

// An integer field of a JSON object; throws auris::Error naming the file and the field when absent,
// not an integer, or outside [min, max].
int json_int(const nlohmann::json& object, const std::string& key, const std::string& file, int min, int max);

// [[layer, head], ...] -> pairs, each checked against the decoder's layers and heads.
std::vector<std::pair<int, int>> parse_alignment_heads(const nlohmann::json& heads, int n_text_layer, int n_text_head,
                                                       const std::string& file);

// GPT-2 unicode tokens by id -> raw bytes of the first n_regular (the regular tokens). Checks the list
// is long enough and that a token after them, if any, is <|endoftext|>.
std::vector<std::string> regular_vocab_from_unicode(const std::vector<std::string>& tokens, int n_regular,
                                                    const std::string& file);

}  // namespace auris
