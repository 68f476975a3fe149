#include "decoding/step_rules.h"

#include <algorithm>
#include <limits>

#include "decoding/log_softmax.h"
#include "kernels/cpu/norm_activation.h"

namespace auris {

void apply_step_rules(const StepRules& rules, std::span<float> logits, int n_vocab) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (size_t k = 0; k < rules.row_masks.size(); ++k) {
    const std::span<float> row = logits.subspan(k * n_vocab, n_vocab);
    if (rules.repetition_penalty != 1.0f && k < rules.penalized_tokens.size()) {
      for (int t : rules.penalized_tokens[k])
        row[t] = row[t] < 0 ? row[t] * rules.repetition_penalty : row[t] / rules.repetition_penalty;
    }
    for (int t : rules.masked_tokens) row[t] = kNegInf;
    for (const TokenRange& r : rules.row_masks[k]) {
      const int begin = std::clamp(r.begin, 0, n_vocab), end = std::clamp(r.end, 0, n_vocab);
      for (int i = begin; i < end; ++i) row[i] = kNegInf;
    }
    if (!rules.timestamp_begin) continue;
    // The common log-normaliser of log_softmax cancels out of openai's comparison.
    const int tb = *rules.timestamp_begin;
    const double timestamp_logsum = log_sum_exp(row.subspan(tb));
    const double max_text = max_value(row.data(), tb);  // -inf when there is no text token
    if (timestamp_logsum > max_text) std::fill(row.begin(), row.begin() + tb, kNegInf);
  }
}

}  // namespace auris
