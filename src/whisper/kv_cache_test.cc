#include "whisper/kv_cache.h"

#include <gtest/gtest.h>

#include "auris/error.h"

namespace auris {
namespace {

constexpr int kLayers = 2, kRows = 5, kCtx = 8, kWidth = 3, kLength = 4;

// Every filled value names its layer, row, position and component, so a wrong copy shows.
float marker(int layer, int row, int pos, int c) { return layer * 1000 + row * 100 + pos * 10 + c; }

SelfKVCache filled_cache() {
  SelfKVCache cache(kLayers, kRows, kCtx, kWidth);
  for (int l = 0; l < kLayers; ++l)
    for (int r = 0; r < kRows; ++r)
      for (int p = 0; p < kLength; ++p)
        for (int c = 0; c < kWidth; ++c) {
          cache.keys(l, r)[p * kWidth + c] = marker(l, r, p, c);
          cache.values(l, r)[p * kWidth + c] = -marker(l, r, p, c);
        }
  cache.set_length(kLength);
  return cache;
}

void expect_rows_come_from(SelfKVCache& cache, const std::vector<int>& sources) {
  for (int l = 0; l < kLayers; ++l)
    for (size_t r = 0; r < sources.size(); ++r)
      for (int p = 0; p < kLength; ++p)
        for (int c = 0; c < kWidth; ++c) {
          ASSERT_EQ(cache.keys(l, r)[p * kWidth + c], marker(l, sources[r], p, c)) << "layer " << l << " row " << r;
          ASSERT_EQ(cache.values(l, r)[p * kWidth + c], -marker(l, sources[r], p, c)) << "layer " << l << " row " << r;
        }
}

TEST(SelfKVCache, ReorderCopiesEachRowsSourcePrefix) {
  // Beam search's patterns: duplicates, a cycle, chains through rows that are overwritten
  // themselves, fewer rows than the cache holds, and the identity.
  for (const std::vector<int>& sources : std::vector<std::vector<int>>{{0, 0, 1, 2, 3},
                                                                       {1, 0, 3, 4, 2},
                                                                       {4, 4, 4, 4, 4},
                                                                       {2, 2, 0},
                                                                       {3, 1, 4, 3, 0},
                                                                       {0, 1, 2, 3, 4}}) {
    SelfKVCache cache = filled_cache();
    cache.reorder(sources);
    expect_rows_come_from(cache, sources);
  }
}

TEST(SelfKVCache, ReorderRejectsRowsOutOfRange) {
  SelfKVCache cache = filled_cache();
  EXPECT_THROW(cache.reorder({0, 5}), Error);
  EXPECT_THROW(cache.reorder({-1}), Error);
}

// Beams after a shared prompt: positions [0, kShared) are row 0's only, and a reorder copies only the
// rows' own positions, leaving the prompt in row 0 as it was.
TEST(SelfKVCache, SharedPromptStaysInRowZeroThroughReorders) {
  constexpr int kShared = 2;
  SelfKVCache cache = filled_cache();
  cache.set_length(kShared);
  cache.share_prefix();
  cache.set_length(kLength);
  EXPECT_EQ(cache.shared_length(), kShared);
  // Marks what a copy of a shared position into another row would overwrite.
  for (int l = 0; l < kLayers; ++l)
    for (int r = 1; r < kRows; ++r) cache.keys(l, r)[0] = -1.0f;
  const std::vector<int> sources{3, 3, 0, 1, 2};
  cache.reorder(sources);
  for (int l = 0; l < kLayers; ++l)
    for (int r = 0; r < kRows; ++r) {
      for (int p = kShared; p < kLength; ++p)
        for (int c = 0; c < kWidth; ++c)
          ASSERT_EQ(cache.keys(l, r)[p * kWidth + c], marker(l, sources[r], p, c)) << "layer " << l << " row " << r;
      EXPECT_EQ(cache.keys(l, r)[0], r == 0 ? marker(l, 0, 0, 0) : -1.0f) << "shared position copied, row " << r;
    }
  cache.set_length(0);  // a new prefill
  EXPECT_EQ(cache.shared_length(), 0);
}

}  // namespace
}  // namespace auris
