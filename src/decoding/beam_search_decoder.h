// Beam search as openai's BeamSearchDecoder: each step keeps the beam_size best unfinished
// sequences per audio (from beam_size + 1 candidates of every beam), collects finished ones until
// round(beam_size * patience) are there, and reorders the model's caches to follow the beams.
// Candidate bookkeeping mirrors the reference's Python dicts, ties and insertion order included.
#pragma once

#include <optional>
#include <utility>

#include "decoding/inference.h"
#include "decoding/token_decoder.h"

namespace auris {

class BeamSearchDecoder : public TokenDecoder {
 public:
  // patience: unset or 0 mean 1.0 (as openai's `patience or 1.0`). Throws auris::Error when
  // round(beam_size * patience) < 1.
  BeamSearchDecoder(int beam_size, int eot, Inference& inference, std::optional<double> patience);
  void reset() override;
  std::optional<Wanted> wanted() const override { return Wanted{Selection::kTopLogprobs, beam_size_ + 1}; }
  bool update(TokenRows& tokens, std::span<const float> logits, int n_vocab,
              std::vector<float>& sum_logprobs) override;
  bool update(TokenRows& tokens, const StepProposals& proposals, std::vector<float>& sum_logprobs) override;
  DecodingCandidates finalize(const TokenRows& tokens, const std::vector<float>& sum_logprobs,
                              int n_group) override;

  int max_candidates() const { return max_candidates_; }

 private:
  // An insertion-ordered map from sequence to score, like a Python dict.
  using SequenceScores = std::vector<std::pair<std::vector<int>, double>>;

  int beam_size_;
  int eot_;
  Inference& inference_;
  int max_candidates_;
  std::vector<SequenceScores> finished_;  // per audio; empty until the first update
};

}  // namespace auris
