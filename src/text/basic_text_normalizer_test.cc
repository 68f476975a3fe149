#include "text/basic_text_normalizer.h"

#include <gtest/gtest.h>

#include "auris/error.h"
#include "auris/text.h"
#include "text/text_fixtures_for_tests.h"

namespace auris {
namespace {

// Every input of the reference corpus gives exactly openai's BasicTextNormalizer output, with and
// without remove_diacritics and split_letters.
TEST(BasicTextNormalizer, MatchesOpenaiOnReferenceCorpus) {
  const auto cases = test::read_text_fixture("normalizer_cases.json")["text"];
  ASSERT_GT(cases.size(), 400u);
  const BasicTextNormalizer plain;
  const BasicTextNormalizer diacritics({.remove_diacritics = true});
  const BasicTextNormalizer split({.remove_diacritics = true, .split_letters = true});
  for (const auto& c : cases) {
    const std::string input = c["input"];
    EXPECT_EQ(plain(input), c["basic"].get<std::string>()) << "input: \"" << input << "\"";
    EXPECT_EQ(diacritics(input), c["basic_remove_diacritics"].get<std::string>()) << "input: \"" << input << "\"";
    EXPECT_EQ(split(input), c["basic_remove_diacritics_split_letters"].get<std::string>())
        << "input: \"" << input << "\"";
  }
}

TEST(BasicTextNormalizer, PublicApiPassesOptions) {
  EXPECT_EQ(normalize_basic("Crème Brûlée!"), "crème brûlée ");
  EXPECT_EQ(normalize_basic("Crème Brûlée!", true), "creme brulee ");
  EXPECT_EQ(normalize_basic("Crème", true, true), "c r e m e");
}

TEST(BasicTextNormalizer, KeepsRequestedSymbols) {
  EXPECT_EQ(remove_symbols_and_diacritics("$5.50, é!", ".$"), "$5.50  e ");
}

TEST(BasicTextNormalizer, RejectsInvalidUtf8) { EXPECT_THROW(normalize_basic("\xC3"), Error); }

}  // namespace
}  // namespace auris
