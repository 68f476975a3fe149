// The bookkeeping every Inference::logits implementation shares (CPU and CUDA engines): whether a
// call is the prefill or a step, what it must compute, and how one prefilled prompt's logits become
// every row's.
#pragma once

#include <vector>

namespace auris {

// A prefill call: every row holds the same prompt (beams and best-of candidates start together),
// which is computed once. Throws auris::Error when the rows differ or there are none.
struct PrefillCall {
  const std::vector<int>& prompt;
  int rows;
  // Prompt positions whose logits are wanted: the last, then the extra positions if asked for.
  std::vector<int> logit_positions;
  bool extra;
};
PrefillCall prefill_call(const std::vector<std::vector<int>>& tokens, const std::vector<int>& extra_positions,
                         const std::vector<float>* extra_logits_out);

// A step: each row's newest token. Throws auris::Error unless every row grew by exactly one token
// since the cache's `length`.
std::vector<int> step_tokens(const std::vector<std::vector<int>>& tokens, int length);

// Writes the prefill's logits ([positions x n_vocab]): logits_out gets the last position's as every
// row's, extra_logits_out (when asked for) the extra positions', once.
void replicate_prefill_logits(const PrefillCall& call, const std::vector<float>& prefill_logits, int n_vocab,
                              std::vector<float>& logits_out, std::vector<float>* extra_logits_out);

}  // namespace auris
