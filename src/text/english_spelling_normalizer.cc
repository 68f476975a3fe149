#include "text/english_spelling_normalizer.h"

#include <unordered_map>

#include "text/unicode_text.h"

namespace auris {
namespace {

struct SpellingEntry {
  std::string_view british;
  std::string_view american;
};

constexpr SpellingEntry kSpellingTable[] = {
#include "text/english_spelling_table.inc"
};

const std::unordered_map<std::string_view, std::string_view>& spelling_map() {
  static const auto* map = [] {
    auto* m = new std::unordered_map<std::string_view, std::string_view>();
    for (const SpellingEntry& e : kSpellingTable) (*m)[e.british] = e.american;
    return m;
  }();
  return *map;
}

}  // namespace

std::string_view EnglishSpellingNormalizer::american_spelling(std::string_view word) {
  const auto& map = spelling_map();
  const auto it = map.find(word);
  return it == map.end() ? word : it->second;
}

std::string EnglishSpellingNormalizer::operator()(std::string_view text) const {
  std::string out;
  bool first = true;
  for (const std::string& word : split_python_whitespace(text)) {
    if (!first) out += ' ';
    out += american_spelling(word);
    first = false;
  }
  return out;
}

}  // namespace auris
