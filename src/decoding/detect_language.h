// Spoken-language identification as openai's detect_language: the logits after
// <|startoftranscript|> alone, restricted to the language tokens.
#pragma once

#include <map>
#include <string>

#include "decoding/inference.h"
#include "tokenizer/tokenizer.h"

namespace auris {

struct LanguageDetection {
  int token = -1;            // the most likely language token
  std::string code;          // its code, e.g. "en"
  std::map<std::string, float> probabilities;  // softmax over the language tokens, per code
};

// Runs one prefill of [<|startoftranscript|>] (resetting the inference before). Throws auris::Error
// for an English-only tokenizer, which has no language tokens.
LanguageDetection detect_language(Inference& inference, const Tokenizer& tokenizer);

}  // namespace auris
