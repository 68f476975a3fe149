// The inner product the hand-written kernels (few-rows product, decode-step attention) are built on.
#pragma once

namespace auris {

// 16 independent partial sums: the compiler keeps them in one vector register (it may not reassociate
// a single float sum on its own, which would leave the loop scalar).
inline float dot_product(const float* a, const float* b, int n) {
  float partial[16] = {};
  int c = 0;
  for (; c + 16 <= n; c += 16)
    for (int l = 0; l < 16; ++l) partial[l] += a[c + l] * b[c + l];
  float sum = 0.0f;
  for (int l = 0; l < 16; ++l) sum += partial[l];
  for (; c < n; ++c) sum += a[c] * b[c];
  return sum;
}

}  // namespace auris
