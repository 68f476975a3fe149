// Scaled dot-product attention over n_head heads laid out side by side in each row
// ([rows x n_head*d_head], any row stride). Only the n_kv keys given are read: callers pass the
// filled prefix of a cache, never its padded length.
#pragma once

#include <vector>

namespace auris {

struct AttentionInput {
  const float* q;
  int ldq;
  int n_q;
  const float* k;
  int ldk;
  const float* v;
  int ldv;
  int n_kv;
  int n_head;
  int d_head;
  // Causal mask: query i sees keys j <= i + causal_offset. Negative: no mask.
  int causal_offset = -1;
};

// out[n_q x n_head*d_head] (row stride ldo). scratch grows to n_q*n_kv floats as needed.
void attention(const AttentionInput& in, float* out, int ldo, std::vector<float>& scratch);

}  // namespace auris
