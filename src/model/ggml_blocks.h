// whisper.cpp's block quantisations q8_0 and q4_0, as its `quantize` tool writes them into ggml
// files: each row is cut into blocks of 32 weights, stored as an fp16 scale d and 32 small integers
// q, weight ~ d * q.
//  - q8_0: d = max|x| / 127, q = round(x / d) (half away from zero) in int8: 34 bytes a block
//  - q4_0: d = -(the weight of largest magnitude) / 8, q = min(15, floor(x / d + 8.5)) - 8, stored
//    plus 8 in a nibble: weight j of the block in the low nibble of byte j, weight j + 16 in the
//    high one: 18 bytes a block
// The arithmetic is that of ggml's reference quantisers, so that a file auris writes holds the bytes
// whisper.cpp's own tool would write (bench/peers/check_ggml_blocks.py compares them with libggml's).
#pragma once

#include <cstddef>
#include <cstdint>

namespace auris {

inline constexpr int kGgmlBlockWeights = 32;

// Bytes of one block of ggml tensor type `type` (ggml_format.h: kGgmlQ8_0, kGgmlQ4_0); 0 for a type
// that is not one of these two.
size_t ggml_block_bytes(int32_t type);

// Bytes n weights of ggml type `type` take in a file: f32, f16, or whole blocks of q8_0 / q4_0.
uint64_t ggml_tensor_bytes(int32_t type, uint64_t n);

// n weights (a multiple of kGgmlBlockWeights) into n / 32 blocks of `type` at out.
void quantize_ggml_blocks(int32_t type, const float* x, size_t n, uint8_t* out);
// n weights back from n / 32 blocks of `type`: d * q each, as whisper.cpp computes them.
void dequantize_ggml_blocks(int32_t type, const uint8_t* blocks, size_t n, float* out);

}  // namespace auris
