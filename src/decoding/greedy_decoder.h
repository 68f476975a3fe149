// Greedy decoding (temperature 0: the most likely token) or sampling from softmax(logits / T),
// as openai's GreedyDecoder; rows that reached <|endoftext|> keep repeating it.
#pragma once

#include <cstdint>
#include <random>

#include "decoding/token_decoder.h"

namespace auris {

class GreedyDecoder : public TokenDecoder {
 public:
  GreedyDecoder(double temperature, int eot, std::uint64_t seed = 0);
  std::optional<Wanted> wanted() const override;
  bool update(TokenRows& tokens, std::span<const float> logits, int n_vocab,
              std::vector<float>& sum_logprobs) override;
  bool update(TokenRows& tokens, const StepProposals& proposals, std::vector<float>& sum_logprobs) override;
  DecodingCandidates finalize(const TokenRows& tokens, const std::vector<float>& sum_logprobs,
                              int n_group) override;

 private:
  int sample(std::span<const float> row);
  // Appends next[k] to row k (<|endoftext|> to a finished row), adding logprobs[k] to the others.
  bool append(TokenRows& tokens, std::span<const int> next, std::span<const float> logprobs,
              std::vector<float>& sum_logprobs) const;

  double temperature_;
  int eot_;
  std::mt19937_64 rng_;
};

}  // namespace auris
