#include "text/word_error_rate.h"

#include <gtest/gtest.h>

#include "auris/error.h"
#include "auris/text.h"
#include "text/text_fixtures_for_tests.h"

namespace auris {
namespace {

WerNormalization normalization_named(const std::string& name) {
  if (name == "english") return WerNormalization::kEnglish;
  if (name == "basic") return WerNormalization::kBasic;
  if (name == "none") return WerNormalization::kNone;
  throw std::runtime_error("unknown normalization in fixture: " + name);
}

// jiwer.process_words on the same (normalised) sentence lists: same hits, S, D, I and WER.
TEST(WordErrorRate, MatchesJiwer) {
  const auto cases = test::read_text_fixture("wer_cases.json");
  ASSERT_GT(cases.size(), 100u);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const WordErrorRate r = word_error_rate(c["references"].get<std::vector<std::string>>(),
                                            c["hypotheses"].get<std::vector<std::string>>(),
                                            normalization_named(c["normalization"]));
    SCOPED_TRACE("case " + std::to_string(i));
    EXPECT_EQ(r.hits, c["hits"].get<std::size_t>());
    EXPECT_EQ(r.substitutions, c["substitutions"].get<std::size_t>());
    EXPECT_EQ(r.deletions, c["deletions"].get<std::size_t>());
    EXPECT_EQ(r.insertions, c["insertions"].get<std::size_t>());
    EXPECT_EQ(r.reference_words, r.hits + r.substitutions + r.deletions);
    EXPECT_DOUBLE_EQ(r.rate, c["wer"].get<double>());
  }
}

// From first principles: one substitution, one deletion, one insertion over four reference words.
TEST(WordErrorRate, CountsEachKindOfEdit) {
  const WordEditCounts c = align_words({"the", "cat", "sat", "down"}, {"the", "bat", "sat", "down", "there"});
  EXPECT_EQ(c.hits, 3u);
  EXPECT_EQ(c.substitutions, 1u);
  EXPECT_EQ(c.insertions, 1u);
  EXPECT_EQ(c.deletions, 0u);
  const WordEditCounts d = align_words({"a", "b", "c"}, {"a", "c"});
  EXPECT_EQ(d.deletions, 1u);
  EXPECT_DOUBLE_EQ(d.word_error_rate(), 1.0 / 3.0);
}

TEST(WordErrorRate, RejectsMismatchedListsAndBadText) {
  EXPECT_THROW(word_error_rate({"a", "b"}, {"a"}), Error);
  EXPECT_THROW(word_error_rate({"a"}, {"\xFF"}, WerNormalization::kNone), Error);
}

TEST(WordErrorRate, SplitsWordsLikeJiwer) {
  EXPECT_EQ(jiwer_words("  a  b\tc "), (std::vector<std::string>{"a", "b\tc"}));
  EXPECT_TRUE(jiwer_words(" \t ").empty());
}

}  // namespace
}  // namespace auris
