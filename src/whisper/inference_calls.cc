#include "whisper/inference_calls.h"

#include <cstring>

#include "auris/error.h"

namespace auris {

PrefillCall prefill_call(const std::vector<std::vector<int>>& tokens, const std::vector<int>& extra_positions,
                         const std::vector<float>* extra_logits_out) {
  if (tokens.empty()) throw Error("decoder called with no sequences");
  for (const auto& row : tokens)
    if (row != tokens[0]) throw Error("all sequences must share one prompt at prefill");
  if (tokens[0].empty()) throw Error("decoder prefill needs at least one token");
  const int length = static_cast<int>(tokens[0].size());
  for (int p : extra_positions)
    if (p < 0 || p >= length) throw Error("an extra logits position is outside the prompt");
  const bool extra = !extra_positions.empty() && extra_logits_out != nullptr;
  PrefillCall call{tokens[0], static_cast<int>(tokens.size()), {length - 1}, extra};
  if (extra) call.logit_positions.insert(call.logit_positions.end(), extra_positions.begin(), extra_positions.end());
  return call;
}

std::vector<int> step_tokens(const std::vector<std::vector<int>>& tokens, int length) {
  if (tokens.empty()) throw Error("decoder called with no sequences");
  std::vector<int> next(tokens.size());
  for (size_t r = 0; r < tokens.size(); ++r) {
    if (static_cast<int>(tokens[r].size()) != length + 1)
      throw Error("each decode step must add exactly one token per sequence");
    next[r] = tokens[r].back();
  }
  return next;
}

void replicate_prefill_logits(const PrefillCall& call, const std::vector<float>& prefill_logits, int n_vocab,
                              std::vector<float>& logits_out, std::vector<float>* extra_logits_out) {
  auto replicate = [&](const float* row, std::vector<float>& out) {
    out.resize(static_cast<size_t>(call.rows) * n_vocab);
    for (int r = 0; r < call.rows; ++r) std::memcpy(out.data() + static_cast<size_t>(r) * n_vocab, row, n_vocab * sizeof(float));
  };
  replicate(prefill_logits.data(), logits_out);
  if (call.extra) {
    const auto positions = static_cast<long>(call.logit_positions.size());
    extra_logits_out->assign(prefill_logits.begin() + n_vocab, prefill_logits.begin() + positions * n_vocab);
  }
}

}  // namespace auris
