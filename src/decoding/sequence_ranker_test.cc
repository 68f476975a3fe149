// The ranker picks among a group's finished candidates by openai's rules, or by CTranslate2's
// length_penalty (sum over length ** exponent) as faster-whisper passes it.
#include "decoding/sequence_ranker.h"

#include <gtest/gtest.h>

#include <optional>
#include <vector>

namespace auris {
namespace {

// One audio's candidates: 2 tokens summing -2 (mean -1), and 8 tokens summing -4 (mean -0.5).
const std::vector<std::vector<std::vector<int>>> kCandidates = {{{1, 2}, {1, 2, 3, 4, 5, 6, 7, 8}}};
const std::vector<std::vector<double>> kSums = {{-2.0, -4.0}};

int choice(std::optional<double> length_penalty, std::optional<double> length_exponent) {
  return MaximumLikelihoodRanker(length_penalty, length_exponent).rank(kCandidates, kSums)[0];
}

TEST(MaximumLikelihoodRanker, DividesByTheLengthAsOpenaiAndCTranslate2Do) {
  EXPECT_EQ(choice(std::nullopt, std::nullopt), 1) << "openai's plain rule: the best mean";
  EXPECT_EQ(choice(std::nullopt, 1.0), 1) << "CTranslate2's 1 is the same rule";
  EXPECT_EQ(choice(std::nullopt, 0.0), 0) << "no normalisation: the best sum";
  // -2 / 2^0.2 = -1.741 against -4 / 8^0.2 = -2.639; -2 / 2^0.6 = -1.320 against -4 / 8^0.6 = -1.149.
  EXPECT_EQ(choice(std::nullopt, 0.2), 0);
  EXPECT_EQ(choice(std::nullopt, 0.6), 1);
  // Google NMT's alpha: -2 / (7/6)^1 = -1.714 against -4 / (13/6)^1 = -1.846.
  EXPECT_EQ(choice(1.0, std::nullopt), 0);
}

}  // namespace
}  // namespace auris
