#include "tokenizer/word_split.h"

#include <gtest/gtest.h>

#include "transcribe/timing_fixtures_for_tests.h"

namespace auris {
namespace {

TEST(WordSplit, EqualsOpenaiSplitToWordTokens) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const auto cases = test::read_timing_fixture("word_split.json");
  for (const auto& c : cases) {
    const Tokenizer& tokenizer = test::fixture_tokenizer(data, c.at("encoding").get<std::string>());
    const WordTokens split =
        split_to_word_tokens(tokenizer, c.at("language").get<std::string>(), c.at("tokens").get<std::vector<int>>());
    EXPECT_EQ(split.words, c.at("words").get<std::vector<std::string>>()) << c.at("language");
    EXPECT_EQ(split.tokens, c.at("word_tokens").get<std::vector<std::vector<int>>>()) << c.at("language");
  }
}

}  // namespace
}  // namespace auris
