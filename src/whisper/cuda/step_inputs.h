// What the host writes for a captured decode step: each row's token, position, caches and window, at
// fixed device addresses the graph's kernels read.
#pragma once

#include <vector>

#include "kernels/cuda/kernels.h"

namespace auris::cuda {

constexpr int kMaxBucket = 64;  // rows one captured step takes at most (every slot's beams or best-of)
static_assert(kMaxBucket <= kStepTailMaxRows, "the step's tail takes every row of a step");

// The step's inputs at fixed device addresses, a value per row.
struct StepInputs {
  int tokens[kMaxBucket];
  int positions[kMaxBucket];
  int rows[kMaxBucket];       // the row's self-attention cache row
  int n_kv[kMaxBucket];       // keys it reads: its window's filled prefix, this step's position included
  int n_visible[kMaxBucket];  // keys that count (n_kv, but the full-cache ablation reads all 448 and masks)
  int n_ctx[kMaxBucket];      // its window's 1500 cross-attention keys
  int windows[kMaxBucket];    // its window's slot
  StepTailInputs tail;        // the logit filters and the choice, for the step's tail
};

// One slot's rows in a step.
struct StepPart {
  int slot;
  std::vector<int> tokens;  // each row's newest token
};

}  // namespace auris::cuda
