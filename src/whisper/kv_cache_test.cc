#include "whisper/kv_cache.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "auris/error.h"
#include "kernels/cpu/attention.h"
#include "model/model_test_util.h"

namespace auris {
namespace {

constexpr int kLayers = 2, kRows = 5, kCtx = 8, kHeads = 2, kHeadWidth = 3, kWidth = kHeads * kHeadWidth, kLength = 4;

// Every filled value names its layer, row, position and component, so a wrong copy shows.
float marker(int layer, int row, int pos, int c) { return layer * 1000 + row * 100 + pos * 10 + c; }

// Component c (of the heads side by side) of position pos, in the cache's head-major layout.
float& at(SelfKVCache& cache, float* row_start, int pos, int c) {
  return row_start[(c / kHeadWidth) * cache.head_stride() + pos * kHeadWidth + c % kHeadWidth];
}

SelfKVCache filled_cache() {
  SelfKVCache cache(kLayers, kRows, kCtx, kHeads, kHeadWidth);
  for (int l = 0; l < kLayers; ++l)
    for (int r = 0; r < kRows; ++r)
      for (int p = 0; p < kLength; ++p) {
        float k[kWidth], v[kWidth];
        for (int c = 0; c < kWidth; ++c) {
          k[c] = marker(l, r, p, c);
          v[c] = -marker(l, r, p, c);
        }
        cache.store(l, r, p, k, v);
      }
  cache.set_length(kLength);
  return cache;
}

void expect_rows_come_from(SelfKVCache& cache, const std::vector<int>& sources) {
  for (int l = 0; l < kLayers; ++l)
    for (size_t r = 0; r < sources.size(); ++r)
      for (int p = 0; p < kLength; ++p)
        for (int c = 0; c < kWidth; ++c) {
          ASSERT_EQ(at(cache, cache.keys(l, r), p, c), marker(l, sources[r], p, c)) << "layer " << l << " row " << r;
          ASSERT_EQ(at(cache, cache.values(l, r), p, c), -marker(l, sources[r], p, c)) << "layer " << l << " row " << r;
        }
}

// store() puts a position's heads where attention reads them: head h's run, position p's slot.
TEST(SelfKVCache, StoreWritesEachHeadIntoItsOwnRun) {
  SelfKVCache cache = filled_cache();
  for (int l = 0; l < kLayers; ++l)
    for (int r = 0; r < kRows; ++r)
      for (int h = 0; h < kHeads; ++h)
        for (int p = 0; p < kLength; ++p)
          for (int c = 0; c < kHeadWidth; ++c)
            ASSERT_EQ(cache.keys(l, r)[h * cache.head_stride() + p * cache.d_head() + c], marker(l, r, p, h * kHeadWidth + c));
  EXPECT_EQ(cache.head_stride(), kCtx * kHeadWidth);
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
    for (int r = 1; r < kRows; ++r)
      for (int c = 0; c < kWidth; ++c) at(cache, cache.keys(l, r), 0, c) = -1.0f;
  const std::vector<int> sources{3, 3, 0, 1, 2};
  cache.reorder(sources);
  for (int l = 0; l < kLayers; ++l)
    for (int r = 0; r < kRows; ++r) {
      for (int p = kShared; p < kLength; ++p)
        for (int c = 0; c < kWidth; ++c)
          ASSERT_EQ(at(cache, cache.keys(l, r), p, c), marker(l, sources[r], p, c)) << "layer " << l << " row " << r;
      for (int c = 0; c < kWidth; ++c)
        EXPECT_EQ(at(cache, cache.keys(l, r), 0, c), r == 0 ? marker(l, 0, 0, c) : -1.0f) << "shared position copied, row " << r;
    }
  cache.set_length(0);  // a new prefill
  EXPECT_EQ(cache.shared_length(), 0);
}

// A new window in a batch slot: the cache is empty, and every position it held reads as zero again
// (its pages were handed back), while it can still be filled as before.
TEST(SelfKVCache, ReleaseMemoryEmptiesItAndLeavesZeros) {
  SelfKVCache cache = filled_cache();
  cache.share_prefix();
  cache.release_memory();
  EXPECT_EQ(cache.length(), 0);
  EXPECT_EQ(cache.shared_length(), 0);
  for (int l = 0; l < kLayers; ++l)
    for (int r = 0; r < kRows; ++r)
      for (int p = 0; p < kLength; ++p)
        for (int c = 0; c < kWidth; ++c) {
          ASSERT_EQ(at(cache, cache.keys(l, r), p, c), 0.0f) << "layer " << l << " row " << r << " position " << p;
          ASSERT_EQ(at(cache, cache.values(l, r), p, c), 0.0f) << "layer " << l << " row " << r << " position " << p;
        }
  const float k[kWidth] = {1, 2, 3, 4, 5, 6}, v[kWidth] = {-1, -2, -3, -4, -5, -6};
  cache.store(1, 4, 0, k, v);
  EXPECT_EQ(at(cache, cache.keys(1, 4), 0, 5), 6.0f);
  EXPECT_EQ(at(cache, cache.values(1, 4), 0, 5), -6.0f);
}

// The int8 cross cache (the int8 compute type's) holds every key and value row of every head as
// int8 times that row's own scale: each component within half a step of the fp32 cache's, and the
// whole in about a quarter of its bytes.
TEST(CrossKVCache, Int8RowsWithinHalfAStepOfFloat32) {
  const WhisperModel int8_model = build_whisper_model(test::synthetic_model(), ComputeType::kInt8);
  const ModelDims& dims = int8_model.dims;
  std::mt19937 rng(5);
  std::normal_distribution<float> dist;
  std::vector<float> encoder_out(static_cast<size_t>(dims.n_audio_ctx) * dims.n_audio_state);
  for (float& x : encoder_out) x = dist(rng);
  // Some frames far louder than the rest: per-row scales keep the quiet ones' precision.
  for (int t = 0; t < dims.n_audio_ctx; t += 97)
    for (int c = 0; c < dims.n_audio_state; ++c) encoder_out[static_cast<size_t>(t) * dims.n_audio_state + c] *= 50.0f;
  // The reference: the same int8 model's projection, stored as for float32.
  WhisperModel reference_model = build_whisper_model(test::synthetic_model(), ComputeType::kInt8);
  reference_model.compute_type = ComputeType::kFloat32;
  CrossKVCache exact, quantised;
  std::vector<float> projection;
  exact.compute(reference_model, encoder_out.data(), projection);
  quantised.compute(int8_model, encoder_out.data(), projection);
  ASSERT_TRUE(quantised.int8());
  ASSERT_FALSE(exact.int8() || exact.fp16());
  const int n_head = dims.n_text_head, d_head = dims.n_text_state / n_head, n_ctx = exact.n_ctx();
  std::vector<float> exact_keys(static_cast<size_t>(d_head) * n_ctx), quantised_keys(exact_keys.size());
  for (int l = 0; l < dims.n_text_layer; ++l)
    for (int h = 0; h < n_head; ++h) {
      exact.head_keys(l, h, exact_keys.data());
      quantised.head_keys(l, h, quantised_keys.data());
      const float* values = exact.values(l) + h * exact.head_stride();
      const int8_t* values_int8 = quantised.values_int8(l) + h * quantised.head_stride();
      for (int t = 0; t < n_ctx; ++t) {
        const float key_step = quantised.key_scales(l)[h * quantised.scale_head_stride() + t];
        const float value_step = quantised.value_scales(l)[h * quantised.scale_head_stride() + t];
        float largest_key = 0.0f, largest_value = 0.0f;
        for (int c = 0; c < d_head; ++c) {
          const size_t k = static_cast<size_t>(c) * n_ctx + t, v = static_cast<size_t>(t) * d_head + c;
          ASSERT_NEAR(quantised_keys[k], exact_keys[k], 0.5001f * key_step) << "layer " << l << " head " << h << " key " << t;
          ASSERT_NEAR(value_step * values_int8[v], values[v], 0.5001f * value_step) << "layer " << l << " head " << h << " value " << t;
          largest_key = std::max(largest_key, std::fabs(exact_keys[k]));
          largest_value = std::max(largest_value, std::fabs(values[v]));
        }
        // Each row's own scale: its largest component is +-127 steps.
        ASSERT_NEAR(key_step * 127.0f, largest_key, 1e-5f * largest_key) << "key " << t;
        ASSERT_NEAR(value_step * 127.0f, largest_value, 1e-5f * largest_value) << "value " << t;
      }
    }
  // A byte per component and a float per row of d_head components.
  EXPECT_EQ(quantised.bytes(), exact.bytes() / 4 + exact.bytes() / d_head);
  EXPECT_EQ(quantised.bytes(), CrossKVCache::storage_bytes(dims, ComputeType::kInt8));
  EXPECT_EQ(exact.bytes(), CrossKVCache::storage_bytes(dims, ComputeType::kFloat32));
}

// The float32 cross cache holds the projection of the window's encoder output, each head's keys in
// panels and its values by row, across the projection's chunks of rows. A second window overwrites
// every key and value in place, and the last panel's padding stays zero.
TEST(CrossKVCache, HoldsTheProjectionInPanelsWindowAfterWindow) {
  const WhisperModel model = build_whisper_model(test::synthetic_model(), ComputeType::kFloat32);
  const ModelDims& dims = model.dims;
  const int n_ctx = dims.n_audio_ctx, n_head = dims.n_text_head, d_head = dims.n_text_state / n_head;
  const int projected_width = model.cross_kv_all_layers.out_features();
  std::mt19937 rng(9);
  std::normal_distribution<float> dist;
  CrossKVCache cache;
  std::vector<float> projection;  // shared by both windows, as a caller's scratch is
  for (int window = 0; window < 2; ++window) {
    std::vector<float> encoder_out(static_cast<size_t>(n_ctx) * dims.n_audio_state);
    for (float& x : encoder_out) x = dist(rng);
    std::vector<float> projected(static_cast<size_t>(n_ctx) * projected_width);
    model.cross_kv_all_layers.forward(encoder_out.data(), n_ctx, projected.data());
    cache.compute(model, encoder_out.data(), projection);
    const int capacity = key_panel_capacity(n_ctx);
    ASSERT_GT(capacity, n_ctx) << "the synthetic model should leave padding keys";
    for (int l = 0; l < dims.n_text_layer; ++l)
      for (int h = 0; h < n_head; ++h) {
        const float* keys = cache.keys(l) + h * cache.head_stride();
        const float* values = cache.values(l) + h * cache.head_stride();
        const size_t key_column = static_cast<size_t>((2 * l) * n_head + h) * d_head;
        const size_t value_column = static_cast<size_t>((2 * l + 1) * n_head + h) * d_head;
        for (int t = 0; t < capacity; ++t)
          for (int c = 0; c < d_head; ++c) {
            const float key = keys[(static_cast<size_t>(t / kKeyPanel) * d_head + c) * kKeyPanel + t % kKeyPanel];
            const float value = values[static_cast<size_t>(t) * d_head + c];
            const float* row = projected.data() + static_cast<size_t>(t) * projected_width;
            // Within rounding: the cache projects its rows in chunks, which sgemm may block differently.
            const float expected_key = t < n_ctx ? row[key_column + c] : 0.0f;
            const float expected_value = t < n_ctx ? row[value_column + c] : 0.0f;
            ASSERT_NEAR(key, expected_key, 1e-5f * (1 + std::fabs(expected_key))) << "window " << window << " layer " << l << " head " << h << " key " << t;
            ASSERT_NEAR(value, expected_value, 1e-5f * (1 + std::fabs(expected_value))) << "window " << window << " layer " << l << " head " << h << " value " << t;
          }
      }
  }
}

}  // namespace
}  // namespace auris
