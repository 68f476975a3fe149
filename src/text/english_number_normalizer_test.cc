#include "text/english_number_normalizer.h"

#include <gtest/gtest.h>

#include "text/text_fixtures_for_tests.h"

namespace auris {
namespace {

// openai's EnglishNumberNormalizer on its own, on number phrases (these keep "-" and "+", which
// the full English normaliser removes before numbers are read).
TEST(EnglishNumberNormalizer, MatchesOpenaiOnNumberPhrases) {
  const auto cases = test::read_text_fixture("normalizer_cases.json")["numbers"];
  ASSERT_GT(cases.size(), 150u);
  const EnglishNumberNormalizer normalize;
  for (const auto& c : cases) {
    const std::string input = c["input"];
    EXPECT_EQ(normalize(input), c["output"].get<std::string>()) << "input: \"" << input << "\"";
  }
}

// From first principles: Python ints have no size limit, so neither do these. A multiplier scales
// only the last three digits: value // 1000 * 1000 + value % 1000 * multiplier.
TEST(EnglishNumberNormalizer, HandlesIntegersBeyondSixtyFourBits) {
  const EnglishNumberNormalizer normalize;
  EXPECT_EQ(normalize("five decillion"), "5" + std::string(33, '0'));
  // 99999999999999999999000 + 999 * 1000
  EXPECT_EQ(normalize("99999999999999999999999 thousand"), "100000000000000000998000");
}

}  // namespace
}  // namespace auris
