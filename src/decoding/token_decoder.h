// How the next token of each sequence is chosen from a step's logits (openai TokenDecoder), and how
// the candidate sequences are collected when decoding stops.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "decoding/logit_filters.h"
#include "decoding/step_proposals.h"

namespace auris {

// Per audio: candidate token sequences (whole context, ending in <|endoftext|>) and their summed
// log-probabilities, in the order the ranker sees them.
struct DecodingCandidates {
  std::vector<std::vector<std::vector<int>>> tokens;
  std::vector<std::vector<double>> sum_logprobs;
};

class TokenDecoder {
 public:
  virtual ~TokenDecoder() = default;
  // Forgets the state of a previous decode.
  virtual void reset() {}
  struct Wanted {
    Selection selection;
    int k;
  };
  // What update() needs of each row's filtered logits, when proposals are enough; unset when it
  // needs the logits themselves (sampling).
  virtual std::optional<Wanted> wanted() const = 0;
  // Appends the next token to every row of `tokens` (rows may be reordered) and updates each row's
  // sum of log-probabilities (float32, as the reference keeps it), from the step's filtered logits.
  // Returns true when done.
  virtual bool update(TokenRows& tokens, std::span<const float> logits, int n_vocab,
                      std::vector<float>& sum_logprobs) = 0;
  // The same from the proposals wanted() asks for (made on an engine's device).
  virtual bool update(TokenRows& tokens, const StepProposals& proposals, std::vector<float>& sum_logprobs) = 0;
  // tokens and sum_logprobs hold n_audio * n_group rows, grouped per audio.
  virtual DecodingCandidates finalize(const TokenRows& tokens, const std::vector<float>& sum_logprobs,
                                      int n_group) = 0;
};

}  // namespace auris
