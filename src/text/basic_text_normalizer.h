// openai/whisper's BasicTextNormalizer (whisper/normalizers/basic.py), the language-agnostic
// normaliser used for non-English WER: lower-case, drop bracketed/parenthesised spans, turn marks,
// symbols and punctuation into spaces, collapse whitespace.
#pragma once

#include <string>
#include <string_view>

namespace auris {

// remove_symbols_and_diacritics(s, keep): NFKD, then drop combining marks (Mn), spell out the
// letters NFKD leaves alone ("æ" -> "ae", "ß" -> "ss" ...), and replace other marks, symbols and
// punctuation with a space, except for the characters in `keep`. Input must be valid UTF-8.
std::string remove_symbols_and_diacritics(std::string_view text, std::string_view keep = "");

// remove_symbols(s): NFKC, then marks, symbols and punctuation become spaces (diacritics stay).
std::string remove_symbols(std::string_view text);

struct BasicTextNormalizerOptions {
  bool remove_diacritics = false;  // use remove_symbols_and_diacritics instead of remove_symbols
  bool split_letters = false;      // put a space between grapheme clusters
};

class BasicTextNormalizer {
 public:
  explicit BasicTextNormalizer(BasicTextNormalizerOptions options = {});
  // Throws auris::Error if `text` is not valid UTF-8.
  std::string operator()(std::string_view text) const;

 private:
  BasicTextNormalizerOptions options_;
};

}  // namespace auris
