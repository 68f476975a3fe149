#include "model/bpe_merges.h"

#include <limits>
#include <unordered_map>

namespace auris {

std::vector<std::pair<std::string, std::string>> derive_bpe_merges(const std::vector<std::string>& vocab) {
  std::unordered_map<std::string, int> rank;
  rank.reserve(vocab.size());
  for (size_t i = 0; i < vocab.size(); ++i) rank.emplace(vocab[i], static_cast<int>(i));

  std::vector<std::pair<std::string, std::string>> merges;
  for (size_t r = 0; r < vocab.size(); ++r) {
    const std::string& token = vocab[r];
    if (token.size() < 2) continue;
    std::vector<std::string> parts;
    for (char c : token) parts.emplace_back(1, c);
    // Byte-pair encode with the merges that existed before this token.
    while (parts.size() > 2) {
      int best = std::numeric_limits<int>::max();
      size_t at = 0;
      for (size_t i = 0; i + 1 < parts.size(); ++i) {
        auto it = rank.find(parts[i] + parts[i + 1]);
        if (it != rank.end() && it->second < static_cast<int>(r) && it->second < best) {
          best = it->second;
          at = i;
        }
      }
      if (best == std::numeric_limits<int>::max()) break;
      parts[at] += parts[at + 1];
      parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(at) + 1);
    }
    if (parts.size() == 2) merges.emplace_back(parts[0], parts[1]);
  }
  return merges;
}

}  // namespace auris
