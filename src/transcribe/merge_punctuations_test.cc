#include "transcribe/merge_punctuations.h"

#include <gtest/gtest.h>

#include "transcribe/timing_fixtures_for_tests.h"

namespace auris {
namespace {

TEST(MergePunctuations, EqualsOpenai) {
  const auto cases = test::read_timing_fixture("merge_punctuations.json");
  ASSERT_GT(cases.size(), 10u);
  for (const auto& c : cases) {
    std::vector<WordTiming> alignment;
    for (const auto& w : c.at("input")) alignment.push_back({w[0].get<std::string>(), w[1].get<std::vector<int>>()});
    merge_punctuations(alignment, c.at("prepend").get<std::string>(), c.at("append").get<std::string>());
    const auto& expected = c.at("output");
    ASSERT_EQ(alignment.size(), expected.size());
    for (size_t i = 0; i < alignment.size(); ++i) {
      EXPECT_EQ(alignment[i].word, expected[i][0].get<std::string>());
      EXPECT_EQ(alignment[i].tokens, expected[i][1].get<std::vector<int>>());
    }
  }
}

}  // namespace
}  // namespace auris
