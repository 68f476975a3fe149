// A decode step's filters and choice (decoding/step_rules.h, step_proposals.h) as the fixed arrays
// the captured step's tail kernel reads (kernels/cuda/kernels.h, StepTailInputs).
#pragma once

#include "decoding/step_proposals.h"
#include "decoding/step_rules.h"
#include "kernels/cuda/kernels.h"

namespace auris::cuda {

// Fills `out` for rules.row_masks.size() rows. False when they do not fit its arrays (more rows,
// masked tokens, ranges a row or proposals than it holds): the caller then filters on the host.
bool pack_step_tail(const StepRules& rules, Selection selection, int k, StepTailInputs& out);

// A tail that masks nothing and takes each row's argmax: what a step runs when the host wants its logits.
void pack_no_tail(StepTailInputs& out);

}  // namespace auris::cuda
