// A libFuzzer target over text users hand auris to be tokenized (an initial prompt, hotwords, a
// prefix, the server's `prompt` field), run by scripts/fuzz.sh (and its seeds replayed by ctest
// through tests/fuzz/replay.cc). The input, any bytes, is encoded with the multilingual vocabulary
// ($AURIS_TEST_DATA/tokenizer/multilingual.tiktoken, default ../shared/data): every token must be a
// regular one, and their bytes, in order, must be the input's again (byte-level BPE loses nothing),
// or the text is refused with auris::Error (not UTF-8) that is not an internal error. Anything else,
// a crash or a sanitizer report is a finding. With AURIS_FUZZ_SEEDS=DIR the program
// writes seed texts to DIR/text/ and exits.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "auris/error.h"
#include "fuzz/fuzz_support.h"
#include "tokenizer/tokenizer.h"

namespace {

auris::Tokenizer load_tokenizer() {
  const char* data = std::getenv("AURIS_TEST_DATA");
  const std::string path = std::string(data ? data : "../shared/data") + "/tokenizer/multilingual.tiktoken";
  if (!std::filesystem::exists(path)) {
    std::fprintf(stderr, "no %s: set AURIS_TEST_DATA to the test data\n", path.c_str());
    std::exit(2);
  }
  return auris::Tokenizer::from_tiktoken_file(path, 100);
}

void write_seeds(const std::string& root) {
  const std::vector<std::string> texts = {
      "And so, my fellow Americans, ask not what your country can do for you.",
      "  leading spaces,\ttabs\nand new lines  ",
      "I'm, you're, it's, we've, they'd, she'll: contractions 'S 'LL",
      "3.14159 1,000,000 2024-12-01 #42 $9.99",
      "Ich habe Kubernetes und kubectl benutzt. ¿Dónde está?",
      "你好，世界。こんにちは。안녕하세요",
      "مرحبا بالعالم שלום עולם",
      "emoji 👋🏽🇫🇷 and combining e\u0301",
      std::string("invalid \xff\xfe bytes \xc3 and \xe2\x82 truncated"),
      std::string("nul \0 inside", 12),
  };
  std::filesystem::create_directories(root + "/text");
  for (size_t i = 0; i < texts.size(); ++i)
    std::ofstream(root + "/text/" + std::to_string(i), std::ios::binary) << texts[i];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auris::Tokenizer tokenizer = load_tokenizer();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<int> tokens;
  try {
    tokens = tokenizer.encode(text);
  } catch (const auris::Error& e) {
    if (std::string_view(e.what()).starts_with("internal error")) {
      std::fprintf(stderr, "%s\n", e.what());
      std::abort();
    }
    return 0;  // a clear refusal (text that is not UTF-8)
  }
  std::string again;
  for (const int token : tokens) {
    if (token < 0 || token >= tokenizer.eot()) {
      std::fprintf(stderr, "encode gave token %d, not a regular token (eot %d)\n", token, tokenizer.eot());
      std::abort();
    }
    again += tokenizer.token_bytes(token);
  }
  if (again != text) {
    std::fprintf(stderr, "the tokens' bytes (%zu) are not the text's (%zu)\n", again.size(), text.size());
    std::abort();
  }
  return 0;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) { return auris::fuzz::write_seeds_if_asked(write_seeds); }
