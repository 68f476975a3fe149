// What a decoder takes from one step: each row's best next tokens and their log-probabilities,
// chosen from the filtered logits (step_rules.h) on the host, or by a device engine inside its step
// so that only these cross back (Inference::propose).
#pragma once

#include <span>
#include <vector>

namespace auris {

enum class Selection {
  kArgmax,        // greedy decoding: openai's logits.argmax(-1), the first of equal maxima (k = 1)
  kTopLogprobs,   // beam search: torch.topk of the log-probabilities, equal values lower index first
};

struct StepProposals {
  int k = 0;
  std::vector<int> tokens;      // [rows x k], best first
  std::vector<float> logprobs;  // their log_softmax values
};

// The proposals from [rows x n_vocab] filtered logits, on the host: k a row, or n_vocab if fewer.
void propose_on_host(std::span<const float> logits, int rows, int n_vocab, Selection selection, int k,
                     StepProposals& out);

}  // namespace auris
