#include "whisper/cuda/step_tail_rules.h"

#include <algorithm>

namespace auris::cuda {

bool pack_step_tail(const StepRules& rules, Selection selection, int k, StepTailInputs& out) {
  const size_t rows = rules.row_masks.size();
  if (rows > static_cast<size_t>(kStepTailMaxRows) || rules.masked_tokens.size() > static_cast<size_t>(kStepTailMaxMaskedTokens))
    return false;
  if (k < 1 || k > kStepTailMaxK || (selection == Selection::kArgmax && k != 1)) return false;
  for (const auto& masks : rules.row_masks)
    if (masks.size() > static_cast<size_t>(kStepTailMaxRanges)) return false;
  pack_no_tail(out);
  std::copy(rules.masked_tokens.begin(), rules.masked_tokens.end(), out.masked_tokens);
  out.n_masked_tokens = static_cast<int>(rules.masked_tokens.size());
  for (size_t r = 0; r < rows; ++r) {
    const auto& masks = rules.row_masks[r];
    for (size_t i = 0; i < masks.size(); ++i) {
      out.ranges[r][i][0] = masks[i].begin;
      out.ranges[r][i][1] = masks[i].end;  // the kernel compares, so INT_MAX reads as "to the end"
    }
    out.n_ranges[r] = static_cast<int>(masks.size());
  }
  out.timestamp_begin = rules.timestamp_begin.value_or(-1);
  out.argmax = selection == Selection::kArgmax ? 1 : 0;
  out.k = k;
  return true;
}

void pack_no_tail(StepTailInputs& out) {
  out.n_masked_tokens = 0;
  std::fill(std::begin(out.n_ranges), std::end(out.n_ranges), 0);
  out.timestamp_begin = -1;
  out.argmax = 1;
  out.k = 1;
}

}  // namespace auris::cuda
