// Scaled dot-product attention over n_head heads. Queries and the output lay the heads side by side
// in each row ([rows x n_head*d_head], any row stride); keys and values may instead be head-major
// (head h starts at k + h*k_head_stride), and keys in panels of kKeyPanel keys, as the
// cross-attention cache stores them so that every step streams each head's keys contiguously.
// Only the n_kv keys given are read: callers pass the filled prefix of a cache, never its padded
// length.
#pragma once

#include <cstdint>
#include <vector>

namespace auris {

// Keys per panel: panel p of a head holds keys [p*kKeyPanel, (p+1)*kKeyPanel) as [d_head x kKeyPanel]
// (key j in column j % kKeyPanel), so the scores kernels read one contiguous run per panel and
// produce kKeyPanel scores per query with vector FMAs and no horizontal sums.
inline constexpr int kKeyPanel = 16;
// Keys a head's panels hold: n_kv rounded up to whole panels (the padding keys are zero).
inline int key_panel_capacity(int n_kv) { return (n_kv + kKeyPanel - 1) / kKeyPanel * kKeyPanel; }

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
  // Distance between heads in k and v; 0 means side by side in a row (d_head).
  long k_head_stride = 0;
  long v_head_stride = 0;
  // Keys in panels (ldk unused): head h's panels start at k + h*k_head_stride. Needs k_head_stride.
  bool keys_in_panels = false;
  // Keys and values stored as fp16 (the cross-attention cache of float16 and bfloat16) instead
  // of k and v: same layout, half the bytes. Needs keys_in_panels.
  const uint16_t* k_fp16 = nullptr;
  const uint16_t* v_fp16 = nullptr;
  // Or as int8 (the int8 compute type's cross-attention cache: a quarter of fp32's bytes), each key
  // and each value row with its own scale: key j stands for key_scales[j] * k_int8's key j, value
  // row j for value_scales[j] * its int8 row. Head h's scales start at h * scale_head_stride. The
  // key scales multiply the scores and the value scales the softmax weights, so neither is widened
  // beyond a register. Needs keys_in_panels.
  const int8_t* k_int8 = nullptr;
  const int8_t* v_int8 = nullptr;
  const float* key_scales = nullptr;
  const float* value_scales = nullptr;
  long scale_head_stride = 0;
  // Many queries over fp32 keys and values by row, unmasked (the encoder's self-attention under the
  // bfloat16 and int8_bfloat16 compute types): queries, keys, values and softmax weights rounded to bf16 for the two
  // products, summed in fp32, where the CPU multiplies bf16 pairs (AVX512-BF16: twice the fp32 rate).
  // Elsewhere, and for any other shape, it runs in fp32.
  bool bf16_products = false;
};

// out[n_q x n_head*d_head] (row stride ldo). Heads (and chunks of queries) run in parallel (OpenMP);
// scratch grows as needed: a few queries' scores per thread, and for many queries over keys not yet
// in panels, every head's keys packed into panels.
void attention(const AttentionInput& in, float* out, int ldo, std::vector<float>& scratch);

// A beam step's self-attention: queries (the beams) whose keys are a prompt they all share,
// stored once, followed by each query's own keys (its beam's tokens since). Each query attends over
// its prompt and own keys as one prefix, to the bit as attention() over that prefix would, but the
// prompt's keys and values are read once for every 8 queries. Keys and values lie in rows of stride
// ld, head h starting head_stride after head h-1 (heads side by side, or a cache's head-major
// runs); queries and out as in attention().
struct SharedPromptInput {
  const float* q;
  int ldq;
  int n_q;
  const float* prompt_k;
  const float* prompt_v;
  int n_prompt;
  const float* const* own_k;  // [n_q]: query i's own keys, n_own rows from own_k[i]
  const float* const* own_v;
  int n_own;
  int ld;
  int n_head;
  int d_head;
  // Own key j is seen when j <= own_causal_offset; negative: all n_own.
  int own_causal_offset = -1;
  // Distance between heads in keys and values; 0 means side by side in a row (d_head).
  long head_stride = 0;
};
void attention_over_shared_prompt(const SharedPromptInput& in, float* out, int ldo, std::vector<float>& scratch);

}  // namespace auris
