#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "auris/error.h"
#include "tokenizer/bpe.h"
#include "tokenizer/languages.h"
#include "tokenizer/tiktoken_file.h"
#include "tokenizer/utf8.h"

namespace auris {
namespace {

constexpr int kNumTimestamps = 1501;  // <|0.00|> ... <|30.00|> in steps of 0.02 s

// openai get_encoding's specials, in id order after the regular tokens.
std::vector<std::string> special_token_texts(const std::vector<std::string>& language_codes) {
  std::vector<std::string> texts = {"<|endoftext|>", "<|startoftranscript|>"};
  for (const std::string& code : language_codes) texts.push_back("<|" + code + "|>");
  for (const char* t : {"<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>",
                        "<|nospeech|>", "<|notimestamps|>"}) {
    texts.push_back(t);
  }
  for (int i = 0; i < kNumTimestamps; ++i) {
    // f"{i * 0.02:.2f}": i * 0.02 s is exactly i * 2 hundredths, so integer formatting matches.
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "<|%d.%02d|>", i * 2 / 100, i * 2 % 100);
    texts.push_back(buffer);
  }
  return texts;
}

}  // namespace

struct Tokenizer::Impl {
  explicit Impl(const std::vector<std::string>& vocab) : bpe(vocab) {}
  BytePairEncoder bpe;
  std::vector<std::string> specials;  // text of special token eot + i
};

Tokenizer::Tokenizer(std::vector<std::string> vocab, int num_languages)
    : vocab_(std::move(vocab)), num_languages_(num_languages) {
  const auto languages = whisper_languages();
  if (num_languages < 1 || num_languages > static_cast<int>(languages.size())) {
    throw Error("num_languages must be between 1 and " + std::to_string(languages.size()) +
                ", got " + std::to_string(num_languages) + "; take it from the model's dimensions");
  }
  if (vocab_.size() < 256 || vocab_.size() > 1'000'000) {
    throw Error("a BPE vocabulary of " + std::to_string(vocab_.size()) +
                " tokens cannot be Whisper's (it has 50256 or 50257 regular tokens); check the "
                "model's vocabulary file");
  }
  eot_ = static_cast<int>(vocab_.size());
  for (int i = 0; i < num_languages; ++i) language_codes_.emplace_back(languages[i].code);
  // As openai ModelDims.is_multilingual: only multilingual models have 51865+ tokens.
  multilingual_ = n_vocab() >= 51865;
  auto impl = std::make_shared<Impl>(vocab_);
  impl->specials = special_token_texts(language_codes_);
  impl_ = std::move(impl);
}

Tokenizer Tokenizer::from_tiktoken_file(const std::string& path, int num_languages) {
  return Tokenizer(read_tiktoken_file(path), num_languages);
}

std::vector<int> Tokenizer::encode(std::string_view text) const { return impl_->bpe.encode(text); }

int Tokenizer::n_vocab() const { return timestamp_begin() + kNumTimestamps; }

std::string Tokenizer::token_bytes(int token) const {
  if (token < 0 || token >= n_vocab()) {
    throw Error("token id " + std::to_string(token) + " is outside the vocabulary (0.." +
                std::to_string(n_vocab() - 1) + "); the tokens do not belong to this model");
  }
  if (token < eot_) return vocab_[static_cast<size_t>(token)];
  return impl_->specials[static_cast<size_t>(token - eot_)];
}

std::string Tokenizer::decode(std::span<const int> tokens) const {
  std::string bytes;
  for (int token : tokens) {
    if (token < timestamp_begin()) bytes += token_bytes(token);
  }
  return utf8_replace_invalid(bytes);
}

std::string Tokenizer::decode_with_timestamps(std::span<const int> tokens) const {
  std::string bytes;
  for (int token : tokens) bytes += token_bytes(token);
  return utf8_replace_invalid(bytes);
}

std::optional<int> Tokenizer::language_token(std::string_view code_or_name) const {
  const std::optional<std::string> code = to_language_code(code_or_name);
  if (!code) return std::nullopt;
  const auto it = std::find(language_codes_.begin(), language_codes_.end(), *code);
  if (it == language_codes_.end()) return std::nullopt;
  return sot() + 1 + static_cast<int>(it - language_codes_.begin());
}

std::vector<int> Tokenizer::all_language_tokens() const {
  std::vector<int> tokens;
  for (int i = 0; i < num_languages_; ++i) tokens.push_back(sot() + 1 + i);
  return tokens;
}

std::string Tokenizer::language_code(int token) const {
  const int index = token - sot() - 1;
  if (index < 0 || index >= num_languages_) {
    throw Error("token " + std::to_string(token) + " is not a language token (those are " +
                std::to_string(sot() + 1) + ".." + std::to_string(sot() + num_languages_) + ")");
  }
  return language_codes_[static_cast<size_t>(index)];
}

std::vector<int> Tokenizer::sot_sequence(std::optional<std::string> language, Task task) const {
  // openai get_tokenizer: English-only models take neither language nor task; multilingual ones
  // default to English.
  if (!multilingual_) return {sot()};
  const std::string requested = language.value_or("en");
  const std::optional<int> language_id = language_token(requested);
  if (!language_id) {
    const bool known = to_language_code(requested).has_value();
    throw Error("unsupported language '" + requested + "'" +
                (known ? " for this model, which knows " + std::to_string(num_languages_) +
                             " languages"
                       : "") +
                "; use a code such as 'en' or a name such as 'english'");
  }
  return {sot(), *language_id, task == Task::kTranslate ? translate() : transcribe()};
}

std::vector<int> Tokenizer::non_speech_tokens() const {
  // openai Tokenizer.non_speech_tokens: symbols that only annotate (speaker tags, music notes,
  // brackets), suppressed where encoding them, with or without a leading space, takes one token.
  std::vector<std::string> symbols;
  for (char c : std::string_view("\"#()*+/:;<=>@[\\]^_`{|}~")) symbols.emplace_back(1, c);
  for (const char* s : {"「", "」", "『", "』", "<<", ">>", "<<<", ">>>", "--", "---", "-(", "-[",
                        "('", "(\"", "((", "))", "(((", ")))", "[[", "]]", "{{", "}}", "♪♪", "♪♪♪"}) {
    symbols.emplace_back(s);
  }
  // U+2640..U+267F symbols: when split, their first token (shared lead bytes) is suppressed anyway.
  const std::vector<std::string> miscellaneous = {"♩", "♪", "♫", "♬", "♭", "♮", "♯"};

  // Hyphens and single quotes stay allowed between words, not at a word's start.
  std::set<int> result = {encode(" -").at(0), encode(" '").at(0)};
  const auto add = [&](const std::string& symbol, bool first_token_always) {
    for (const std::string& text : {symbol, " " + symbol}) {
      const std::vector<int> tokens = encode(text);
      if (tokens.size() == 1 || first_token_always) result.insert(tokens.at(0));
    }
  };
  for (const std::string& s : symbols) add(s, false);
  for (const std::string& s : miscellaneous) add(s, true);
  return {result.begin(), result.end()};
}

}  // namespace auris
