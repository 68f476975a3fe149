#include "decoding/top_k.h"

#include <algorithm>

namespace auris {

std::vector<int> top_k(std::span<const float> values, int k) {
  const int n = static_cast<int>(values.size());
  k = std::clamp(k, 0, n);
  std::vector<int> best;  // sorted, at most k: almost every value is compared once, with its last
  best.reserve(k + 1);
  // Indices arrive in increasing order, so an equal value never goes before one already listed.
  auto before = [&](int a, int b) { return values[a] > values[b]; };
  for (int i = 0; i < n && k > 0; ++i) {
    if (static_cast<int>(best.size()) == k && !before(i, best.back())) continue;
    best.insert(std::upper_bound(best.begin(), best.end(), i, before), i);
    if (static_cast<int>(best.size()) > k) best.pop_back();
  }
  return best;
}

}  // namespace auris
