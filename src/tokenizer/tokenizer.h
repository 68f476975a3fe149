// Whisper's tokenizer: byte-level BPE over the gpt2 (English-only) or multilingual vocabulary, with
// the special tokens laid out exactly as openai/whisper's tokenizer.py lays them out after the
// regular tokens: <|endoftext|>, <|startoftranscript|>, one per language, <|translate|>,
// <|transcribe|>, <|startoflm|>, <|startofprev|>, <|nospeech|>, <|notimestamps|>, then 1501
// timestamps <|0.00|> ... <|30.00|>.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace auris {

enum class Task { kTranscribe, kTranslate };

class Tokenizer {
 public:
  // vocab[i] = raw bytes of regular token i (its BPE rank). num_languages as ModelDims says (99 or 100).
  Tokenizer(std::vector<std::string> vocab, int num_languages);
  // Loads a tiktoken ranks file (base64 token, rank per line), e.g. ../shared/data/tokenizer/*.tiktoken.
  static Tokenizer from_tiktoken_file(const std::string& path, int num_languages);

  // BPE-encodes ordinary text (no special tokens), as tiktoken's encode_ordinary with Whisper's regex.
  std::vector<int> encode(std::string_view text) const;
  // Text of the tokens below timestamp_begin (openai Tokenizer.decode); special tokens print as <|...|>.
  std::string decode(std::span<const int> tokens) const;
  // Like decode(), rendering timestamp tokens as "<|1.08|>" (openai decode_with_timestamps).
  std::string decode_with_timestamps(std::span<const int> tokens) const;
  // Raw bytes of one token (regular or special); may be a partial UTF-8 sequence.
  std::string token_bytes(int token) const;

  int n_vocab() const;  // regular + special + timestamp tokens
  bool multilingual() const { return multilingual_; }
  int num_languages() const { return num_languages_; }

  int eot() const { return eot_; }
  int sot() const { return eot_ + 1; }
  int translate() const { return sot() + 1 + num_languages_; }
  int transcribe() const { return translate() + 1; }
  int sot_lm() const { return translate() + 2; }
  int sot_prev() const { return translate() + 3; }
  int no_speech() const { return translate() + 4; }
  int no_timestamps() const { return translate() + 5; }
  int timestamp_begin() const { return translate() + 6; }

  // Language codes in openai/whisper's LANGUAGES order, the first num_languages of them.
  const std::vector<std::string>& language_codes() const { return language_codes_; }
  // Token of a language code ("en") or full name ("english"); nullopt if unknown or not in this model.
  std::optional<int> language_token(std::string_view code_or_name) const;
  std::vector<int> all_language_tokens() const;
  // Code of a language token ("en"); throws auris::Error if the token is not a language token.
  std::string language_code(int token) const;

  // openai sot_sequence: [sot] (+ [language, task] for multilingual models).
  std::vector<int> sot_sequence(std::optional<std::string> language, Task task) const;
  // openai non_speech_tokens: the symbols whisper suppresses by default (suppress_tokens "-1").
  std::vector<int> non_speech_tokens() const;

 private:
  std::vector<std::string> vocab_;
  bool multilingual_ = false;
  int num_languages_ = 0;
  int eot_ = 0;
  std::vector<std::string> language_codes_;
  // BPE lookup state owned by the implementation.
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace auris
