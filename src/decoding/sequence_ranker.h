// Picks the result among a group's candidates, as openai's MaximumLikelihoodRanker: the highest
// sum of log-probabilities divided by the length, or by the Google NMT length penalty
// ((5 + length) / 6) ** alpha when length_penalty (alpha) is given, or by length ** exponent
// (CTranslate2's length_penalty) when length_exponent is.
#pragma once

#include <optional>
#include <vector>

namespace auris {

class MaximumLikelihoodRanker {
 public:
  explicit MaximumLikelihoodRanker(std::optional<double> length_penalty, std::optional<double> length_exponent = {})
      : length_penalty_(length_penalty), length_exponent_(length_exponent) {}
  // tokens[i] are audio i's candidates (sampled tokens only); returns the chosen index per audio,
  // the first of equal scores.
  std::vector<int> rank(const std::vector<std::vector<std::vector<int>>>& tokens,
                        const std::vector<std::vector<double>>& sum_logprobs) const;

 private:
  std::optional<double> length_penalty_;
  std::optional<double> length_exponent_;
};

}  // namespace auris
