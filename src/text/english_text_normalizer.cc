#include "text/english_text_normalizer.h"

#include "text/basic_text_normalizer.h"
#include "text/text_patterns.h"
#include "text/unicode_text.h"

namespace auris {
namespace {

// english.py's replacers, applied in this order.
constexpr std::pair<const char*, const char*> kReplacers[] = {
    // common contractions
    {R"(\bwon't\b)", "will not"},
    {R"(\bcan't\b)", "can not"},
    {R"(\blet's\b)", "let us"},
    {R"(\bain't\b)", "aint"},
    {R"(\by'all\b)", "you all"},
    {R"(\bwanna\b)", "want to"},
    {R"(\bgotta\b)", "got to"},
    {R"(\bgonna\b)", "going to"},
    {R"(\bi'ma\b)", "i am going to"},
    {R"(\bimma\b)", "i am going to"},
    {R"(\bwoulda\b)", "would have"},
    {R"(\bcoulda\b)", "could have"},
    {R"(\bshoulda\b)", "should have"},
    {R"(\bma'am\b)", "madam"},
    // contractions in titles/prefixes
    {R"(\bmr\b)", "mister "},
    {R"(\bmrs\b)", "missus "},
    {R"(\bst\b)", "saint "},
    {R"(\bdr\b)", "doctor "},
    {R"(\bprof\b)", "professor "},
    {R"(\bcapt\b)", "captain "},
    {R"(\bgov\b)", "governor "},
    {R"(\bald\b)", "alderman "},
    {R"(\bgen\b)", "general "},
    {R"(\bsen\b)", "senator "},
    {R"(\brep\b)", "representative "},
    {R"(\bpres\b)", "president "},
    {R"(\brev\b)", "reverend "},
    {R"(\bhon\b)", "honorable "},
    {R"(\basst\b)", "assistant "},
    {R"(\bassoc\b)", "associate "},
    {R"(\blt\b)", "lieutenant "},
    {R"(\bcol\b)", "colonel "},
    {R"(\bjr\b)", "junior "},
    {R"(\bsr\b)", "senior "},
    {R"(\besq\b)", "esquire "},
    // perfect tenses, ideally it should be any past participles, but it's harder..
    {R"('d been\b)", " had been"},
    {R"('s been\b)", " has been"},
    {R"('d gone\b)", " had gone"},
    {R"('s gone\b)", " has gone"},
    {R"('d done\b)", " had done"},  // "'s done" is ambiguous
    {R"('s got\b)", " has got"},
    // general contractions
    {R"(n't\b)", " not"},
    {R"('re\b)", " are"},
    {R"('s\b)", " is"},
    {R"('d\b)", " would"},
    {R"('ll\b)", " will"},
    {R"('t\b)", " not"},
    {R"('ve\b)", " have"},
    {R"('m\b)", " am"},
};

}  // namespace

EnglishTextNormalizer::EnglishTextNormalizer() {
  for (const auto& [pattern, replacement] : kReplacers) {
    replacers_.emplace_back(std::make_unique<PythonRegex>(pattern), replacement);
  }
}

std::string EnglishTextNormalizer::operator()(std::string_view text) const {
  require_valid_utf8(text, "text to normalise");
  const TextPatterns& patterns = TextPatterns::get();
  std::string s = python_lower(text);

  s = patterns.bracketed.sub(s, "");      // remove words between brackets
  s = patterns.parenthesized.sub(s, "");  // remove words between parentheses
  s = ignore_patterns_.sub(s, "");
  s = space_before_apostrophe_.sub(s, "'");  // when there's a space before an apostrophe

  for (const auto& [pattern, replacement] : replacers_) s = pattern->sub(s, replacement);

  s = digit_comma_digit_.sub(s, R"(\1\2)");       // remove commas between digits
  s = period_not_before_digit_.sub(s, R"( \1)");  // remove periods not followed by numbers
  s = remove_symbols_and_diacritics(s, ".%$¢€£");  // keep numeric symbols

  s = standardize_numbers_(s);
  s = standardize_spellings_(s);

  // now remove prefix/suffix symbols that are not preceded/followed by numbers
  s = symbol_not_before_digit_.sub(s, R"( \1)");
  s = percent_not_after_digit_.sub(s, R"(\1 )");

  return patterns.whitespace_run.sub(s, " ");  // replace any successive whitespaces with a space
}

}  // namespace auris
