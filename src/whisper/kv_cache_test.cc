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

TEST(SelfKVCache, BroadcastCopiesRowZerosPrefix) {
  SelfKVCache cache = filled_cache();
  cache.broadcast_row0(kRows);
  expect_rows_come_from(cache, std::vector<int>(kRows, 0));
}

}  // namespace
}  // namespace auris
