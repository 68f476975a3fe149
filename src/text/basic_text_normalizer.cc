#include "text/basic_text_normalizer.h"

#include <utility>

#include "text/python_regex.h"
#include "text/text_patterns.h"
#include "text/unicode_text.h"

namespace auris {
namespace {

// Letters that NFKD does not split into base letter + mark (basic.py ADDITIONAL_DIACRITICS).
const char* additional_diacritic(char32_t c) {
  switch (c) {
    case U'œ': return "oe";
    case U'Œ': return "OE";
    case U'ø': return "o";
    case U'Ø': return "O";
    case U'æ': return "ae";
    case U'Æ': return "AE";
    case U'ß': return "ss";
    case U'ẞ': return "SS";
    case U'đ': return "d";
    case U'Đ': return "D";
    case U'ð': return "d";
    case U'Ð': return "D";
    case U'þ': return "th";
    case U'Þ': return "th";
    case U'ł': return "l";
    case U'Ł': return "L";
    default: return nullptr;
  }
}

bool is_mark_symbol_or_punctuation(char32_t c) {
  const char major = unicode_category(c)[0];
  return major == 'M' || major == 'S' || major == 'P';
}

}  // namespace

std::string remove_symbols_and_diacritics(std::string_view text, std::string_view keep) {
  const std::u32string kept = utf8_to_code_points(keep);
  std::string out;
  for (char32_t c : utf8_to_code_points(normalize_nfkd(text))) {
    if (kept.find(c) != std::u32string::npos) {
      append_utf8(out, c);
    } else if (const char* spelled = additional_diacritic(c)) {
      out += spelled;
    } else if (unicode_category(c) == "Mn") {
      // dropped: a diacritic separated by NFKD
    } else if (is_mark_symbol_or_punctuation(c)) {
      out += ' ';
    } else {
      append_utf8(out, c);
    }
  }
  return out;
}

std::string remove_symbols(std::string_view text) {
  std::string out;
  for (char32_t c : utf8_to_code_points(normalize_nfkc(text))) {
    if (is_mark_symbol_or_punctuation(c)) {
      out += ' ';
    } else {
      append_utf8(out, c);
    }
  }
  return out;
}

BasicTextNormalizer::BasicTextNormalizer(BasicTextNormalizerOptions options) : options_(options) {}

std::string BasicTextNormalizer::operator()(std::string_view text) const {
  require_valid_utf8(text, "text to normalise");
  const TextPatterns& patterns = TextPatterns::get();
  std::string s = python_lower(text);
  s = patterns.bracketed.sub(s, "");  // remove words between brackets
  s = patterns.parenthesized.sub(s, "");  // remove words between parentheses
  s = python_lower(options_.remove_diacritics ? remove_symbols_and_diacritics(s) : remove_symbols(s));
  if (options_.split_letters) {
    std::string joined;
    for (const std::string& cluster : grapheme_clusters(s)) {
      if (!joined.empty()) joined += ' ';
      joined += cluster;
    }
    s = std::move(joined);
  }
  return patterns.whitespace_run.sub(s, " ");
}

}  // namespace auris
