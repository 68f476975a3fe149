// Recovers the BPE merge list (Hugging Face merges.txt) from a rank-ordered vocabulary: the token of
// rank r is the merge of the two pieces that byte-pair encoding with ranks below r leaves of it.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace auris {

// vocab[i] = raw bytes of the token of rank i. Returns (left, right) byte pairs in rank order;
// single bytes and tokens that cannot be split into two earlier tokens yield no merge.
std::vector<std::pair<std::string, std::string>> derive_bpe_merges(const std::vector<std::string>& vocab);

}  // namespace auris
