// Test-only helpers shared by the tokenizer tests: the reference fixtures written by
// tools/reference/make_tokenizer_fixtures.py and tokenizers loaded once from ../shared/data.
#pragma once

#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.h"
#include "tokenizer/tiktoken_file.h"
#include "tokenizer/tokenizer.h"

namespace auris::test {

inline nlohmann::json read_tokenizer_fixture(const std::string& name) {
  const std::string path = fixtures_dir() + "/tokenizer/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("missing fixture " + path);
  return nlohmann::json::parse(in);
}

// Regular tokens of "gpt2" or "multilingual" from ../shared/data/tokenizer, read once.
inline const std::vector<std::string>& tiktoken_vocab(const std::string& data_dir,
                                                      const std::string& encoding) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::string>> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(encoding);
  if (it == cache.end()) {
    it = cache.emplace(encoding, read_tiktoken_file(data_dir + "/tokenizer/" + encoding + ".tiktoken"))
             .first;
  }
  return it->second;
}

}  // namespace auris::test
