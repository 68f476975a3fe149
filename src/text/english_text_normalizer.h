// openai/whisper's EnglishTextNormalizer (whisper/normalizers/english.py), the normaliser that
// Whisper's English WER numbers are computed after: lower-case, drop bracketed spans and fillers
// ("uh", "um"), expand contractions and titles ("won't" -> "will not", "dr" -> "doctor"), strip
// symbols and diacritics, standardise numbers and British spellings. Same steps, same order.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text/english_number_normalizer.h"
#include "text/english_spelling_normalizer.h"
#include "text/python_regex.h"

namespace auris {

class EnglishTextNormalizer {
 public:
  EnglishTextNormalizer();
  // Throws auris::Error if `text` is not valid UTF-8.
  std::string operator()(std::string_view text) const;

 private:
  PythonRegex ignore_patterns_{R"(\b(hmm|mm|mhm|mmm|uh|um)\b)"};
  PythonRegex space_before_apostrophe_{R"(\s+')"};
  std::vector<std::pair<std::unique_ptr<PythonRegex>, std::string>> replacers_;
  PythonRegex digit_comma_digit_{R"((\d),(\d))"};
  PythonRegex period_not_before_digit_{R"(\.([^0-9]|$))"};
  PythonRegex symbol_not_before_digit_{R"([.$¢€£]([^0-9]))"};
  PythonRegex percent_not_after_digit_{R"(([^0-9])%)"};
  EnglishNumberNormalizer standardize_numbers_;
  EnglishSpellingNormalizer standardize_spellings_;
};

}  // namespace auris
