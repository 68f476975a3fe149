// openai/whisper's EnglishNumberNormalizer (whisper/normalizers/english.py), ported line by line
// because WER parity depends on its quirks: spelled-out numbers become digits ("twenty one" ->
// "21", "one oh one" -> "101"), suffixes stay ("1960s", "21st"), currency words become prefixes
// ("twenty dollars" -> "$20"), "percent" becomes "%", "and a half" becomes ".5", commas go.
// Integers have no size limit (Python ints), so "five decillion" works.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "text/python_regex.h"

namespace auris {

class EnglishNumberNormalizer {
 public:
  EnglishNumberNormalizer();
  // Input must be valid UTF-8 (callers check); expects lower-case text as produced by the
  // English normaliser's earlier steps.
  std::string operator()(std::string_view text) const;

  // The three stages, exposed for tests.
  std::string preprocess(std::string_view text) const;
  std::vector<std::string> process_words(const std::vector<std::string>& words) const;
  std::string postprocess(std::string_view text) const;

 private:
  using Suffixed = std::pair<int, std::string>;  // value and suffix: "thirds" -> (3, "s")
  using SuffixedMultiplier = std::pair<std::string, std::string>;  // decimal digits, suffix

  bool is_word(const std::string& w) const { return words_.count(w) != 0; }
  bool is_decimal_word(const std::string& w) const {
    return zeros_.count(w) || ones_.count(w) || tens_.count(w);
  }

  std::set<std::string> zeros_;
  std::unordered_map<std::string, int> ones_;
  std::unordered_map<std::string, Suffixed> ones_suffixed_;
  std::unordered_map<std::string, int> tens_;
  std::unordered_map<std::string, Suffixed> tens_suffixed_;
  std::unordered_map<std::string, std::string> multipliers_;  // name -> power of ten as digits
  std::unordered_map<std::string, SuffixedMultiplier> multipliers_suffixed_;
  std::unordered_map<std::string, std::string> preceding_prefixers_;
  std::unordered_map<std::string, std::string> following_prefixers_;
  std::set<std::string> prefixes_;
  std::set<std::string> specials_;
  std::set<std::string> words_;

  PythonRegex and_a_half_{R"(\band\s+a\s+half\b)"};
  PythonRegex letter_digit_{R"(([a-z])([0-9]))"};
  PythonRegex digit_letter_{R"(([0-9])([a-z]))"};
  PythonRegex spaced_suffix_{R"(([0-9])\s+(st|nd|rd|th|s)\b)"};
  PythonRegex numeric_word_{R"(^\d+(\.\d+)?$)"};
  PythonRegex currency_and_cents_{R"(([€£$])([0-9]+) (?:and )?¢([0-9]{1,2})\b)"};
  PythonRegex currency_below_one_{R"([€£$]0.([0-9]{1,2})\b)"};
  PythonRegex literal_one_{R"(\b1(s?)\b)"};
};

}  // namespace auris
