#include "decoding/step_proposals.h"

#include <algorithm>
#include <string>

#include "auris/error.h"
#include "decoding/log_softmax.h"
#include "decoding/top_k.h"
#include "kernels/cpu/norm_activation.h"

namespace auris {

void propose_on_host(std::span<const float> logits, int rows, int n_vocab, Selection selection, int k,
                     StepProposals& out) {
  if (selection == Selection::kArgmax && k != 1) throw Error("an argmax proposes one token a row, not " + std::to_string(k));
  if (k < 1 || n_vocab < 1) throw Error("cannot propose " + std::to_string(k) + " of " + std::to_string(n_vocab) + " tokens");
  k = std::min(k, n_vocab);  // a vocabulary smaller than the beams: every token
  out.k = k;
  out.tokens.assign(static_cast<size_t>(rows) * k, 0);
  out.logprobs.assign(static_cast<size_t>(rows) * k, 0.0f);
  // Rows in parallel: this is the only work of a step's choice that reads the whole vocabulary.
#pragma omp parallel for schedule(static) if (rows > 1)
  for (int r = 0; r < rows; ++r) {
    const std::span<const float> row = logits.subspan(static_cast<size_t>(r) * n_vocab, n_vocab);
    const size_t at = static_cast<size_t>(r) * k;
    if (selection == Selection::kArgmax) {
      const int next = static_cast<int>(argmax(row.data(), n_vocab));
      out.tokens[at] = next;
      out.logprobs[at] = log_softmax_at(row, next);
      continue;
    }
    thread_local std::vector<float> logprobs;
    logprobs.resize(n_vocab);
    log_softmax(row, logprobs);
    const std::vector<int> best = top_k(logprobs, k);
    for (int j = 0; j < k; ++j) {
      out.tokens[at + j] = best[j];
      out.logprobs[at + j] = logprobs[best[j]];
    }
  }
}

}  // namespace auris
