#include "decoding/greedy_decoder.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "auris/error.h"
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

std::optional<TokenDecoder::Wanted> GreedyDecoder::wanted() const {
  if (temperature_ == 0) return Wanted{Selection::kArgmax, 1};
  return std::nullopt;
}

bool GreedyDecoder::update(TokenRows& tokens, std::span<const float> logits, int n_vocab,
                           std::vector<float>& sum_logprobs) {
  const int rows = static_cast<int>(tokens.size());
  if (temperature_ == 0) {
    StepProposals proposals;
    propose_on_host(logits, rows, n_vocab, Selection::kArgmax, 1, proposals);
    return update(tokens, proposals, sum_logprobs);
  }
  std::vector<int> next(rows);
  std::vector<float> logprobs(rows);
  for (int k = 0; k < rows; ++k) {
    const auto row = logits.subspan(static_cast<size_t>(k) * n_vocab, n_vocab);
    next[k] = sample(row);
    logprobs[k] = log_softmax_at(row, next[k]);
  }
  return append(tokens, next, logprobs, sum_logprobs);
}

bool GreedyDecoder::update(TokenRows& tokens, const StepProposals& proposals, std::vector<float>& sum_logprobs) {
  if (proposals.k != 1 || proposals.tokens.size() != tokens.size() || proposals.logprobs.size() != tokens.size())
    throw Error("greedy decoding takes one proposal a row");
  return append(tokens, proposals.tokens, proposals.logprobs, sum_logprobs);
}

bool GreedyDecoder::append(TokenRows& tokens, std::span<const int> next, std::span<const float> logprobs,
                           std::vector<float>& sum_logprobs) const {
  bool completed = true;
  for (size_t k = 0; k < tokens.size(); ++k) {
    int token = next[k];
    if (!tokens[k].empty() && tokens[k].back() == eot_) {
      token = eot_;  // finished rows neither change nor add log-probability
    } else {
      sum_logprobs[k] += logprobs[k];
    }
    tokens[k].push_back(token);
    completed = completed && token == eot_;
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
