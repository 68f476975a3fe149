#include "model/ggml_blocks.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "auris/error.h"
#include "model/ggml_format.h"
#include "model/half_float.h"

namespace auris {
namespace {

constexpr int kBlock = kGgmlBlockWeights;

void store_scale(float d, uint8_t* block) {
  const uint16_t h = float_to_fp16(d);
  std::memcpy(block, &h, 2);
}

float load_scale(const uint8_t* block) {
  uint16_t h;
  std::memcpy(&h, block, 2);
  return fp16_to_float(h);
}

void quantize_q8_0(const float* x, uint8_t* block) {
  float amax = 0.0f;
  for (int j = 0; j < kBlock; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float d = amax / 127.0f;
  const float inverse = d != 0.0f ? 1.0f / d : 0.0f;
  store_scale(d, block);
  for (int j = 0; j < kBlock; ++j) block[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(std::round(x[j] * inverse)));
}

// Compiled without FMA contraction: ggml rounds x / d before adding 8.5, and one fused operation
// would round a few weights that lie on a boundary into the other nibble.
__attribute__((optimize("fp-contract=off"))) void quantize_q4_0(const float* x, uint8_t* block) {
  float amax = 0.0f, max = 0.0f;  // the weight of largest magnitude, with its sign
  for (int j = 0; j < kBlock; ++j)
    if (amax < std::fabs(x[j])) {
      amax = std::fabs(x[j]);
      max = x[j];
    }
  const float d = max / -8.0f;
  const float inverse = d != 0.0f ? 1.0f / d : 0.0f;
  store_scale(d, block);
  auto nibble = [&](float v) { return static_cast<uint8_t>(std::min(15, static_cast<int>(v * inverse + 8.5f))); };
  for (int j = 0; j < kBlock / 2; ++j)
    block[2 + j] = static_cast<uint8_t>(nibble(x[j]) | nibble(x[j + kBlock / 2]) << 4);
}

void dequantize_q8_0(const uint8_t* block, float* out) {
  const float d = load_scale(block);
  for (int j = 0; j < kBlock; ++j) out[j] = static_cast<float>(static_cast<int8_t>(block[2 + j])) * d;
}

void dequantize_q4_0(const uint8_t* block, float* out) {
  const float d = load_scale(block);
  for (int j = 0; j < kBlock / 2; ++j) {
    out[j] = static_cast<float>((block[2 + j] & 0x0f) - 8) * d;
    out[j + kBlock / 2] = static_cast<float>((block[2 + j] >> 4) - 8) * d;
  }
}

void require_whole_blocks(int32_t type, size_t n) {
  if (ggml_block_bytes(type) == 0) throw Error("ggml type " + ggml_type_name(type) + " is not a block quantisation auris writes or reads");
  if (n % kBlock != 0)
    throw Error(ggml_type_name(type) + " stores rows of whole blocks of 32 weights, and " + std::to_string(n) + " weights are not");
}

}  // namespace

size_t ggml_block_bytes(int32_t type) {
  switch (type) {
    case kGgmlQ8_0: return 2 + kBlock;
    case kGgmlQ4_0: return 2 + kBlock / 2;
    default: return 0;
  }
}

uint64_t ggml_tensor_bytes(int32_t type, uint64_t n) {
  if (type == kGgmlF32) return n * 4;
  if (type == kGgmlF16) return n * 2;
  return n / kBlock * ggml_block_bytes(type);
}

void quantize_ggml_blocks(int32_t type, const float* x, size_t n, uint8_t* out) {
  require_whole_blocks(type, n);
  const size_t bytes = ggml_block_bytes(type);
  for (size_t b = 0; b < n / kBlock; ++b)
    (type == kGgmlQ8_0 ? quantize_q8_0 : quantize_q4_0)(x + b * kBlock, out + b * bytes);
}

void dequantize_ggml_blocks(int32_t type, const uint8_t* blocks, size_t n, float* out) {
  require_whole_blocks(type, n);
  const size_t bytes = ggml_block_bytes(type);
  for (size_t b = 0; b < n / kBlock; ++b)
    (type == kGgmlQ8_0 ? dequantize_q8_0 : dequantize_q4_0)(blocks + b * bytes, out + b * kBlock);
}

}  // namespace auris
