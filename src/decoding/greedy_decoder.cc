#include "decoding/greedy_decoder.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "decoding/log_softmax.h"
#include "kernels/cpu/norm_activation.h"

namespace auris {

GreedyDecoder::GreedyDecoder(double temperature, int eot, std::uint64_t seed)
    : temperature_(temperature), eot_(eot), rng_(seed) {}

int GreedyDecoder::sample(std::span<const float> row) {
  if (temperature_ == 0) {
    return static_cast<int>(argmax(row.data(), static_cast<long>(row.size())));  // the first of equal maxima
  }
  // Categorical(logits = logits / T): weights exp(x / T - max), in float as torch computes them (and
  // vectorised: a fallback samples every row of the vocabulary at every step); -inf has weight 0.
  const float t = static_cast<float>(temperature_);
  std::vector<float> weights(row.size());
  for (size_t i = 0; i < row.size(); ++i) weights[i] = row[i] / t;
  exp_from_max_inplace(weights.data(), static_cast<int>(weights.size()));
  std::vector<double> cumulative(row.size());
  double total = 0.0;
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i] != -std::numeric_limits<float>::infinity()) total += weights[i];
    cumulative[i] = total;
  }
  const double draw = std::uniform_real_distribution<double>(0.0, total)(rng_);
  const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), draw);
  // upper_bound skips zero-weight tokens; a draw of total (rounding) takes the last token of weight.
  size_t pick = static_cast<size_t>(it - cumulative.begin());
  if (pick == row.size())
    for (pick = row.size() - 1; pick > 0 && cumulative[pick] == cumulative[pick - 1];) --pick;
  return static_cast<int>(pick);
}

bool GreedyDecoder::update(TokenRows& tokens, std::span<const float> logits, int n_vocab,
                           std::vector<float>& sum_logprobs) {
  bool completed = true;
  for (size_t k = 0; k < tokens.size(); ++k) {
    const auto row = logits.subspan(k * n_vocab, n_vocab);
    int next = sample(row);
    const bool ended = !tokens[k].empty() && tokens[k].back() == eot_;
    if (ended) {
      next = eot_;  // finished rows neither change nor add log-probability
    } else {
      sum_logprobs[k] += log_softmax_at(row, next);
    }
    tokens[k].push_back(next);
    completed = completed && next == eot_;
  }
  return completed;
}

DecodingCandidates GreedyDecoder::finalize(const TokenRows& tokens, const std::vector<float>& sum_logprobs,
                                           int n_group) {
  DecodingCandidates out;
  for (size_t start = 0; start < tokens.size(); start += n_group) {
    auto& group_tokens = out.tokens.emplace_back();
    auto& group_sums = out.sum_logprobs.emplace_back();
    for (int j = 0; j < n_group; ++j) {
      // Every sequence gets at least one <|endoftext|> at the end.
      std::vector<int> sequence = tokens[start + j];
      sequence.push_back(eot_);
      group_tokens.push_back(std::move(sequence));
      group_sums.push_back(sum_logprobs[start + j]);
    }
  }
  return out;
}

}  // namespace auris
