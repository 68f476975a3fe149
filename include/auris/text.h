// Text normalisation and word error rate, matching openai/whisper's normalisers
// (whisper.normalizers.EnglishTextNormalizer / BasicTextNormalizer) and jiwer's WER, so accuracy
// numbers computed with auris compare with those published for Whisper.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace auris {

// EnglishTextNormalizer: "Mr. Smith won't pay $20.50, uh, for the colour TV" ->
// "mister smith will not pay $20.50 for the color tv". Throws auris::Error on invalid UTF-8.
std::string normalize_english(std::string_view text);

// BasicTextNormalizer(remove_diacritics, split_letters): the language-agnostic normaliser used for
// non-English WER. Throws auris::Error on invalid UTF-8.
std::string normalize_basic(std::string_view text, bool remove_diacritics = false, bool split_letters = false);

// Which normaliser word_error_rate applies to both sides before comparing words.
enum class WerNormalization {
  kNone,                   // compare the text as given (split on whitespace, as jiwer does)
  kEnglish,                // normalize_english
  kBasic,                  // normalize_basic(text)
  kBasicRemoveDiacritics,  // normalize_basic(text, true)
};

struct WordErrorRate {
  std::size_t reference_words = 0;  // N = hits + substitutions + deletions
  std::size_t hits = 0;
  std::size_t substitutions = 0;
  std::size_t deletions = 0;
  std::size_t insertions = 0;
  // (S + D + I) / N over all pairs (jiwer.wer); when N is 0, the number of insertions, as jiwer.
  double rate = 0.0;
};

// Corpus WER of hypotheses[i] against references[i], summed over all pairs. Throws auris::Error
// if the lists differ in length or a string is not valid UTF-8.
WordErrorRate word_error_rate(const std::vector<std::string>& references, const std::vector<std::string>& hypotheses,
                              WerNormalization normalization = WerNormalization::kEnglish);

}  // namespace auris
