// A decode step's filters and choice (decoding/step_rules.h, step_proposals.h) as the fixed arrays
// the captured step's tail kernel reads (kernels/cuda/kernels.h, StepTailInputs).
#pragma once

#include <vector>

#include "decoding/step_proposals.h"
#include "decoding/step_rules.h"
#include "kernels/cuda/kernels.h"

namespace auris::cuda {

// Fills `out` for the rows of several windows' rules, one part after another (a batch's step; one
// part for a window alone): the tokens every part masks stay the rows' shared list, and a part's
// other masked tokens become one-token ranges of its rows. False when they do not fit its arrays
// (more rows, masked tokens, ranges a row or proposals than it holds) or the parts' timestamp rules
// differ: the caller then filters on the host.
bool pack_step_tail(const std::vector<const StepRules*>& parts, Selection selection, int k, StepTailInputs& out);

// A tail that masks nothing and takes each row's argmax: what a step runs when the host wants its logits.
void pack_no_tail(StepTailInputs& out);

}  // namespace auris::cuda
