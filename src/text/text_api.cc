// The public text API (include/auris/text.h) over the normalisers in src/text.
#include "auris/text.h"

#include "text/basic_text_normalizer.h"
#include "text/english_text_normalizer.h"
#include "text/word_error_rate.h"

namespace auris {
namespace {

const EnglishTextNormalizer& english_normalizer() {
  static const EnglishTextNormalizer normalizer;  // compiles its regexes once
  return normalizer;
}

std::string normalize_for_wer(const std::string& text, WerNormalization normalization) {
  switch (normalization) {
    case WerNormalization::kEnglish: return normalize_english(text);
    case WerNormalization::kBasic: return normalize_basic(text);
    case WerNormalization::kBasicRemoveDiacritics: return normalize_basic(text, true);
    case WerNormalization::kNone: break;
  }
  return text;
}

}  // namespace

std::string normalize_english(std::string_view text) { return english_normalizer()(text); }

std::string normalize_basic(std::string_view text, bool remove_diacritics, bool split_letters) {
  return BasicTextNormalizer({remove_diacritics, split_letters})(text);
}

WordErrorRate word_error_rate(const std::vector<std::string>& references, const std::vector<std::string>& hypotheses,
                              WerNormalization normalization) {
  const auto normalized = [&](const std::vector<std::string>& texts) {
    std::vector<std::string> out;
    out.reserve(texts.size());
    for (const std::string& text : texts) out.push_back(normalize_for_wer(text, normalization));
    return out;
  };
  // word_edit_counts reports lists of different lengths.
  const WordEditCounts counts = word_edit_counts(normalized(references), normalized(hypotheses));
  WordErrorRate result;
  result.reference_words = counts.reference_words();
  result.hits = counts.hits;
  result.substitutions = counts.substitutions;
  result.deletions = counts.deletions;
  result.insertions = counts.insertions;
  result.rate = counts.word_error_rate();
  return result;
}

}  // namespace auris
