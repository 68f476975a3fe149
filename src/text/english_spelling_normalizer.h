// openai/whisper's EnglishSpellingNormalizer: maps British spellings to American ones word by word
// ("colour" -> "color"), using whisper's english.json compiled in (english_spelling_table.inc).
#pragma once

#include <string>
#include <string_view>

namespace auris {

class EnglishSpellingNormalizer {
 public:
  // " ".join(mapping.get(word, word) for word in s.split()); input must be valid UTF-8.
  std::string operator()(std::string_view text) const;
  // The American spelling of one word, or the word itself if it is not in the table.
  static std::string_view american_spelling(std::string_view word);
};

}  // namespace auris
