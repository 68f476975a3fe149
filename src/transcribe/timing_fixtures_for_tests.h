// Test-only: the fixtures tools/reference/make_timing_fixtures.py wrote (tests/fixtures/timing) and
// the tokenizers they were made with.
#pragma once

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "test_support.h"
#include "tokenizer/test_tokenizers.h"
#include "tokenizer/tokenizer.h"

namespace auris::test {

inline nlohmann::json read_timing_fixture(const std::string& name) {
  const std::string path = fixtures_dir() + "/timing/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("missing fixture " + path + " (tools/reference/make_timing_fixtures.py)");
  return nlohmann::json::parse(in);
}

// "gpt2" or "multilingual" (99 languages, as the fixtures' tokenizers), from ../shared/data.
inline const Tokenizer& fixture_tokenizer(const std::string& data_dir, const std::string& encoding) {
  static std::map<std::string, std::unique_ptr<Tokenizer>> cache;
  auto& slot = cache[encoding];
  if (!slot) slot = std::make_unique<Tokenizer>(tiktoken_vocab(data_dir, encoding), 99);
  return *slot;
}

}  // namespace auris::test
