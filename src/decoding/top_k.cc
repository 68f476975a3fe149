#include "decoding/top_k.h"

#include <algorithm>

#include "kernels/cpu/dispatched_kernels.h"
#include "kernels/cpu/simd.h"  // last: it enables the path's instructions

namespace auris::AURIS_CPU_PATH {

std::vector<int> top_k(std::span<const float> values, int k) {
  const int n = static_cast<int>(values.size());
  k = std::clamp(k, 0, n);
  std::vector<int> best;  // sorted, at most k
  if (k == 0) return best;
  best.reserve(k + 1);
  // Indices arrive in increasing order, so an equal value never goes before one already listed.
  auto before = [&](int a, int b) { return values[a] > values[b]; };
  auto consider = [&](int i) {
    if (static_cast<int>(best.size()) == k && !before(i, best.back())) return;
    best.insert(std::upper_bound(best.begin(), best.end(), i, before), i);
    if (static_cast<int>(best.size()) > k) best.pop_back();
  };
  int i = 0;
  for (; i < n && static_cast<int>(best.size()) < k; ++i) consider(i);
  // Once k are listed, only a value above the k-th best changes them: whole vectors of values that
  // are not are passed over with one comparison (almost all of a vocabulary's logits).
  constexpr int L = simd::kLanes;
  for (; i + L <= n; i += L) {
    if (!simd::any_greater(simd::load(values.data() + i), values[best.back()])) continue;
    for (int j = i; j < i + L; ++j) consider(j);
  }
  for (; i < n; ++i) consider(i);
  return best;
}

}  // namespace auris::AURIS_CPU_PATH
