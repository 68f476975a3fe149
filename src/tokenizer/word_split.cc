#include "tokenizer/word_split.h"

#include <array>

#include "decoding/strip_whitespace.h"
#include "text/unicode_text.h"

namespace auris {
namespace {

constexpr char32_t kReplacement = U'\uFFFD';
// Python's string.punctuation. openai tests `subword.strip() in string.punctuation`, a substring
// test: "" and runs such as "()" count as punctuation too, and std::string_view::find agrees.
constexpr std::string_view kAsciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

bool is_space_free_language(std::string_view language) {
  static constexpr std::array<std::string_view, 6> kLanguages = {"zh", "ja", "th", "lo", "my", "yue"};
  for (std::string_view l : kLanguages)
    if (l == language) return true;
  return false;
}

}  // namespace

WordTokens split_tokens_on_unicode(const Tokenizer& tokenizer, const std::vector<int>& tokens) {
  const std::u32string full = utf8_to_code_points(tokenizer.decode_with_timestamps(tokens));
  WordTokens out;
  std::vector<int> current;
  size_t unicode_offset = 0;  // code points of `full` already given to words
  for (int token : tokens) {
    current.push_back(token);
    const std::string decoded = tokenizer.decode_with_timestamps(current);
    const std::u32string points = utf8_to_code_points(decoded);
    const size_t bad = points.find(kReplacement);
    // A U+FFFD that the whole text also has is a real one, not a character cut by the split.
    // (Past the end of the full text, where Python would raise, the piece is taken as complete.)
    const bool complete = bad == std::u32string::npos || unicode_offset + bad >= full.size() ||
                          full[unicode_offset + bad] == kReplacement;
    if (complete) {
      out.words.push_back(decoded);
      out.tokens.push_back(std::move(current));
      current.clear();
      unicode_offset += points.size();
    }
  }
  return out;
}

WordTokens split_tokens_on_spaces(const Tokenizer& tokenizer, const std::vector<int>& tokens) {
  WordTokens pieces = split_tokens_on_unicode(tokenizer, tokens);
  WordTokens out;
  for (size_t i = 0; i < pieces.words.size(); ++i) {
    const std::string& subword = pieces.words[i];
    const bool special = pieces.tokens[i].front() >= tokenizer.eot();
    const bool with_space = !subword.empty() && subword.front() == ' ';
    const bool punctuation = kAsciiPunctuation.find(strip_whitespace(subword)) != std::string_view::npos;
    if (special || with_space || punctuation || out.words.empty()) {
      out.words.push_back(subword);
      out.tokens.push_back(std::move(pieces.tokens[i]));
    } else {
      out.words.back() += subword;
      out.tokens.back().insert(out.tokens.back().end(), pieces.tokens[i].begin(), pieces.tokens[i].end());
    }
  }
  return out;
}

WordTokens split_to_word_tokens(const Tokenizer& tokenizer, std::string_view language, const std::vector<int>& tokens) {
  if (is_space_free_language(language)) return split_tokens_on_unicode(tokenizer, tokens);
  return split_tokens_on_spaces(tokenizer, tokens);
}

}  // namespace auris
