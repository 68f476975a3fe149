// How the next token of each sequence is chosen from a step's logits (openai TokenDecoder), and how
// the candidate sequences are collected when decoding stops.
#pragma once

#include <span>
#include <vector>

#include "decoding/logit_filters.h"

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
  // Appends the next token to every row of `tokens` (rows may be reordered) and updates each row's
  // sum of log-probabilities (float32, as the reference keeps it). Returns true when done.
  virtual bool update(TokenRows& tokens, std::span<const float> logits, int n_vocab,
                      std::vector<float>& sum_logprobs) = 0;
  // tokens and sum_logprobs hold n_audio * n_group rows, grouped per audio.
  virtual DecodingCandidates finalize(const TokenRows& tokens, const std::vector<float>& sum_logprobs,
                                      int n_group) = 0;
};

}  // namespace auris
