#include "text/english_text_normalizer.h"

#include <gtest/gtest.h>

#include "auris/error.h"
#include "auris/text.h"
#include "text/text_fixtures_for_tests.h"

namespace auris {
namespace {

// Every input of the reference corpus gives exactly openai's EnglishTextNormalizer output.
TEST(EnglishTextNormalizer, MatchesOpenaiOnReferenceCorpus) {
  const auto cases = test::read_text_fixture("normalizer_cases.json")["text"];
  ASSERT_GT(cases.size(), 400u);
  const EnglishTextNormalizer normalize;
  for (const auto& c : cases) {
    const std::string input = c["input"];
    EXPECT_EQ(normalize(input), c["english"].get<std::string>()) << "input: \"" << input << "\"";
  }
}

TEST(EnglishTextNormalizer, PublicApiMatchesClass) {
  EXPECT_EQ(normalize_english("Mr. Smith won't pay $20.50, uh, for the colour TV"),
            EnglishTextNormalizer()("Mr. Smith won't pay $20.50, uh, for the colour TV"));
}

TEST(EnglishTextNormalizer, RejectsInvalidUtf8) {
  EXPECT_THROW(normalize_english("caf\xE9"), Error);
  EXPECT_THROW(normalize_english("\xED\xA0\x80"), Error);  // a UTF-16 surrogate
}

}  // namespace
}  // namespace auris
