// Spoken-language identification as openai's detect_language: the logits after
// <|startoftranscript|> alone, restricted to the language tokens.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "decoding/inference.h"
#include "tokenizer/tokenizer.h"

namespace auris {

struct LanguageDetection {
  int token = -1;            // the most likely language token
  std::string code;          // its code, e.g. "en"
  double probability = 0.0;  // its probability
  std::map<std::string, float> probabilities;  // softmax over the language tokens, per code
};

// Runs one prefill of [<|startoftranscript|>] (resetting the inference before). Throws auris::Error
// for an English-only tokenizer, which has no language tokens.
LanguageDetection detect_language(Inference& inference, const Tokenizer& tokenizer);

// faster-whisper's detection over several windows (its language_detection_segments and
// language_detection_threshold): load_window(i) sets window i on the inference, for i from 0 up to
// `windows` - 1, and each is detected in turn. The first whose language is more probable than
// `threshold` decides. If none is, the language on top most often decides (of equal counts, the one
// on top first), with its highest probability. `probabilities` are the last window's.
LanguageDetection detect_language(Inference& inference, const Tokenizer& tokenizer, int windows, double threshold,
                                  const std::function<void(int)>& load_window);

}  // namespace auris
