// torch.topk over one row of log-probabilities, as beam search asks for it: the k best tokens.
#pragma once

#include <span>
#include <vector>

namespace auris {

// Indices of the k largest values, largest first; equal values keep the lower index first. One pass
// over the values, a vector at a time (a beam step calls it per beam over the whole vocabulary).
std::vector<int> top_k(std::span<const float> values, int k);

}  // namespace auris
