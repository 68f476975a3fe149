#include "whisper/cuda/step_tail_rules.h"

#include <algorithm>

namespace auris::cuda {

bool pack_step_tail(const std::vector<const StepRules*>& parts, Selection selection, int k, StepTailInputs& out) {
  if (parts.empty()) return false;
  if (k < 1 || k > kStepTailMaxK || (selection == Selection::kArgmax && k != 1)) return false;
  size_t rows = 0;
  for (const StepRules* p : parts) {
    rows += p->row_masks.size();
    if (p->timestamp_begin != parts[0]->timestamp_begin) return false;
    if (p->repetition_penalty != 1.0f) return false;  // the tail only masks: the host penalises
  }
  if (rows > static_cast<size_t>(kStepTailMaxRows)) return false;
  auto sorted = [](std::vector<int> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  std::vector<int> shared = sorted(parts[0]->masked_tokens);
  for (const StepRules* p : parts) {
    const std::vector<int> mine = sorted(p->masked_tokens);
    std::vector<int> both;
    std::set_intersection(shared.begin(), shared.end(), mine.begin(), mine.end(), std::back_inserter(both));
    shared = std::move(both);
  }
  if (shared.size() > static_cast<size_t>(kStepTailMaxMaskedTokens)) return false;
  // Each part's masked tokens that not every part masks, checked to fit before `out` is touched.
  std::vector<std::vector<int>> own(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::vector<int> mine = sorted(parts[i]->masked_tokens);
    std::set_difference(mine.begin(), mine.end(), shared.begin(), shared.end(), std::back_inserter(own[i]));
    for (const auto& masks : parts[i]->row_masks)
      if (masks.size() + own[i].size() > static_cast<size_t>(kStepTailMaxRanges)) return false;
  }
  pack_no_tail(out);
  std::copy(shared.begin(), shared.end(), out.masked_tokens);
  out.n_masked_tokens = static_cast<int>(shared.size());
  size_t row = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    for (const auto& masks : parts[i]->row_masks) {
      int n = 0;
      for (const TokenRange& m : masks) {
        out.ranges[row][n][0] = m.begin;
        out.ranges[row][n++][1] = m.end;  // the kernel compares, so INT_MAX reads as "to the end"
      }
      for (int t : own[i]) {
        out.ranges[row][n][0] = t;
        out.ranges[row][n++][1] = t + 1;
      }
      out.n_ranges[row++] = n;
    }
  }
  out.timestamp_begin = parts[0]->timestamp_begin.value_or(-1);
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
