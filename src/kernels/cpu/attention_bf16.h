// The encoder's self-attention in bf16 products (AttentionInput::bf16_products), for attention() in
// attention.cc. Compiled once per CPU path: only the AVX-512 path has it, and only a CPU with
// AVX512-BF16 runs it.
#pragma once

#include <vector>

#include "kernels/cpu/attention.h"

namespace auris::AURIS_CPU_PATH {

// Runs `in` with bf16 products and returns true where this path, this CPU and this shape allow it
// (many fp32 queries over fp32 keys and values by row, no mask, d_head a multiple of 32); otherwise
// returns false having done nothing, and the caller runs it in fp32.
bool attention_in_bf16(const AttentionInput& in, float* out, int ldo, std::vector<float>& scratch);

}  // namespace auris::AURIS_CPU_PATH
