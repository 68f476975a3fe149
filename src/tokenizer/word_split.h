// Splitting a token sequence into words for word timestamps, as openai/whisper's
// Tokenizer.split_to_word_tokens: languages written without spaces (zh, ja, th, lo, my, yue) split
// wherever the tokens so far decode to whole characters; every other language (and English-only
// models) then joins those pieces into words that start with a space or are punctuation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace auris {

struct WordTokens {
  std::vector<std::string> words;        // decoded text of each word (special tokens as <|...|>)
  std::vector<std::vector<int>> tokens;  // the tokens of each word; together, the input in order
};

// language: the transcription language code ("en", "ja", ...); "" for English-only models, which
// openai's tokenizer gives no language.
WordTokens split_to_word_tokens(const Tokenizer& tokenizer, std::string_view language, const std::vector<int>& tokens);

// Pieces that each decode to complete characters (a token that splits a character joins the next).
WordTokens split_tokens_on_unicode(const Tokenizer& tokenizer, const std::vector<int>& tokens);
// Unicode pieces joined into space-separated words; special tokens and punctuation stand alone.
WordTokens split_tokens_on_spaces(const Tokenizer& tokenizer, const std::vector<int>& tokens);

}  // namespace auris
