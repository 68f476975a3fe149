#include "decoding/sequence_ranker.h"

#include <cmath>

namespace auris {

std::vector<int> MaximumLikelihoodRanker::rank(const std::vector<std::vector<std::vector<int>>>& tokens,
                                               const std::vector<std::vector<double>>& sum_logprobs) const {
  std::vector<int> selected;
  for (size_t i = 0; i < tokens.size(); ++i) {
    int best = 0;
    double best_score = 0;
    for (size_t j = 0; j < tokens[i].size(); ++j) {
      const double length = static_cast<double>(tokens[i][j].size());
      double penalty = length;
      if (length_penalty_) penalty = std::pow((5 + length) / 6, *length_penalty_);
      if (length_exponent_) penalty = std::pow(length, *length_exponent_);
      // An empty candidate (penalty 0) scores -inf where the reference would divide by zero.
      const double score = penalty == 0 ? -INFINITY : sum_logprobs[i][j] / penalty;
      // np.argmax: the first maximum; a NaN wins like it does there.
      if (j == 0 || score > best_score || (std::isnan(score) && !std::isnan(best_score))) {
        best = static_cast<int>(j);
        best_score = score;
      }
    }
    selected.push_back(best);
  }
  return selected;
}

}  // namespace auris
