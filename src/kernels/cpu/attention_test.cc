#include "kernels/cpu/attention.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "model/half_float.h"

namespace auris {
namespace {

// Straightforward per-element attention, the definition the BLAS version must reproduce.
std::vector<float> naive_attention(const AttentionInput& in) {
  const int width = in.n_head * in.d_head;
  std::vector<float> out(static_cast<size_t>(in.n_q) * width, 0.0f);
  for (int h = 0; h < in.n_head; ++h) {
    for (int i = 0; i < in.n_q; ++i) {
      const int visible = in.causal_offset >= 0 ? std::min(in.n_kv, i + in.causal_offset + 1) : in.n_kv;
      std::vector<double> p(visible);
      double max = -INFINITY, sum = 0;
      for (int j = 0; j < visible; ++j) {
        double dot = 0;
        for (int c = 0; c < in.d_head; ++c)
          dot += double(in.q[i * in.ldq + h * in.d_head + c]) * in.k[j * in.ldk + h * in.d_head + c];
        p[j] = dot / std::sqrt(double(in.d_head));
        max = std::max(max, p[j]);
      }
      for (double& x : p) sum += (x = std::exp(x - max));
      for (int c = 0; c < in.d_head; ++c) {
        double acc = 0;
        for (int j = 0; j < visible; ++j) acc += p[j] / sum * in.v[j * in.ldv + h * in.d_head + c];
        out[static_cast<size_t>(i) * width + h * in.d_head + c] = static_cast<float>(acc);
      }
    }
  }
  return out;
}

void expect_matches_naive(int n_q, int n_kv, int n_head, int d_head, int causal_offset, int row_stride_pad) {
  std::mt19937 rng(42);
  std::normal_distribution<float> dist;
  const int width = n_head * d_head;
  const int ld = width + row_stride_pad;
  std::vector<float> q(static_cast<size_t>(n_q) * ld), k(static_cast<size_t>(n_kv) * ld), v(k.size());
  for (auto* buf : {&q, &k, &v})
    for (float& x : *buf) x = dist(rng);
  AttentionInput in{q.data(), ld, n_q, k.data(), ld, v.data(), ld, n_kv, n_head, d_head, causal_offset};
  std::vector<float> out(static_cast<size_t>(n_q) * width), scratch;
  attention(in, out.data(), width, scratch);
  const std::vector<float> expected = naive_attention(in);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], expected[i], 1e-4f) << i;
}

TEST(Attention, MatchesDefinitionWithoutMask) { expect_matches_naive(7, 33, 4, 16, -1, 0); }
TEST(Attention, MatchesDefinitionCausal) { expect_matches_naive(9, 9, 2, 8, 0, 0); }
TEST(Attention, CausalWithCachedPrefix) { expect_matches_naive(3, 10, 3, 8, 7, 0); }
TEST(Attention, StridedRows) { expect_matches_naive(5, 12, 2, 8, -1, 24); }
// A decode step's keys by row go four at a time: key counts that leave one to three over, and a head
// width that is not a whole number of vectors.
TEST(Attention, FewQueriesOverKeysByRow) {
  expect_matches_naive(5, 43, 2, 64, -1, 0);
  expect_matches_naive(2, 22, 3, 12, -1, 4);
}
TEST(Attention, ManyQueriesRunHeadsInParallel) { expect_matches_naive(64, 80, 4, 16, -1, 0); }

// Many queries: packed panels of keys, blocks of queries, chunks over threads, and a key count that is
// not a whole number of panels.
TEST(Attention, ManyQueriesInBlocksAndChunks) {
  expect_matches_naive(150, 150, 3, 64, -1, 8);  // the encoder's self-attention
  expect_matches_naive(100, 130, 2, 64, 30, 0);  // a prefill after a cached prefix: causal blocks
}

TEST(Attention, WhisperHeadWidth) {
  expect_matches_naive(1, 37, 2, 64, -1, 0);  // d_head 64: the register-blocked weighted sums
  expect_matches_naive(6, 300, 2, 64, 299 - 5, 0);
}

// Keys and values of rows [n_kv x n_head*d_head] in the cross-attention cache's layout: per head,
// values [n_kv x d_head] and keys in panels of kKeyPanel. Padding keys are NaN: their scores are
// computed and must never be read.
struct HeadMajorCache {
  HeadMajorCache(const std::vector<float>& k, const std::vector<float>& v, int n_kv, int n_head, int d_head)
      : n_kv(n_kv), n_head(n_head), d_head(d_head), head_stride(static_cast<long>(key_panel_capacity(n_kv)) * d_head),
        keys(head_stride * n_head, NAN), values(head_stride * n_head, NAN) {
    const int width = n_head * d_head;
    for (int h = 0; h < n_head; ++h)
      for (int j = 0; j < n_kv; ++j)
        for (int c = 0; c < d_head; ++c) {
          keys[h * head_stride + (static_cast<size_t>(j / kKeyPanel) * d_head + c) * kKeyPanel + j % kKeyPanel] =
              k[static_cast<size_t>(j) * width + h * d_head + c];
          values[h * head_stride + static_cast<size_t>(j) * d_head + c] = v[static_cast<size_t>(j) * width + h * d_head + c];
        }
  }
  // n_q queries (rows of n_head*d_head) over this cache.
  AttentionInput input(const float* q, int n_q, int causal_offset = -1) const {
    return {q, n_head * d_head, n_q, keys.data(), 0, values.data(), d_head, n_kv, n_head, d_head, causal_offset,
            head_stride, head_stride, /*keys_in_panels=*/true};
  }
  int n_kv, n_head, d_head;
  long head_stride;
  std::vector<float> keys, values;
};

// The cross-attention cache's layout: per head, values [n_kv x d_head] and keys in panels of
// kKeyPanel, in fp32, in fp16 and in int8; for a decode step's few queries (every count 1..8, the kernels'
// register blocks) and a prefill's many, over key counts that fill the last panel or do not.
TEST(Attention, HeadMajorKeyPanels) {
  for (int n_kv : {50, 64, 1500})
    for (int n_q : {1, 2, 3, 4, 5, 6, 7, 8, 20}) {
      const int n_head = 3, d_head = 64, width = n_head * d_head;
      std::mt19937 rng(3);
      std::normal_distribution<float> dist;
      std::vector<float> q(static_cast<size_t>(n_q) * width), k(static_cast<size_t>(n_kv) * width), v(k.size());
      for (auto* buf : {&q, &k, &v})
        for (float& x : *buf) x = dist(rng);
      const HeadMajorCache cache(k, v, n_kv, n_head, d_head);
      const std::vector<float>& k_heads = cache.keys;
      const std::vector<float>& v_heads = cache.values;
      const AttentionInput head_major = cache.input(q.data(), n_q);
      std::vector<float> out(static_cast<size_t>(n_q) * width), scratch;
      attention(head_major, out.data(), width, scratch);
      const std::vector<float> expected =
          naive_attention({q.data(), width, n_q, k.data(), width, v.data(), width, n_kv, n_head, d_head, -1});
      for (size_t i = 0; i < out.size(); ++i)
        ASSERT_NEAR(out[i], expected[i], 1e-4f) << "n_q " << n_q << " n_kv " << n_kv << " at " << i;

      // The same cache in fp16 (float16, bfloat16): the definition over the fp16-rounded keys
      // and values.
      std::vector<uint16_t> k16(k_heads.size()), v16(v_heads.size());
      std::vector<float> k_rounded(k.size()), v_rounded(v.size());
      for (size_t i = 0; i < k16.size(); ++i) k16[i] = float_to_fp16(k_heads[i]);
      for (size_t i = 0; i < v16.size(); ++i) v16[i] = float_to_fp16(v_heads[i]);
      for (size_t i = 0; i < k.size(); ++i) k_rounded[i] = fp16_to_float(float_to_fp16(k[i]));
      for (size_t i = 0; i < v.size(); ++i) v_rounded[i] = fp16_to_float(float_to_fp16(v[i]));
      AttentionInput half = head_major;
      half.k = half.v = nullptr;
      half.k_fp16 = k16.data();
      half.v_fp16 = v16.data();
      attention(half, out.data(), width, scratch);
      const std::vector<float> expected_half =
          naive_attention({q.data(), width, n_q, k_rounded.data(), width, v_rounded.data(), width, n_kv, n_head, d_head, -1});
      for (size_t i = 0; i < out.size(); ++i)
        ASSERT_NEAR(out[i], expected_half[i], 1e-4f) << "fp16, n_q " << n_q << " n_kv " << n_kv << " at " << i;

      // And in int8 with a scale per key and per value row (the int8 compute type): the definition
      // over the dequantised keys and values. The padding keys' scales are NaN: never read.
      const long scale_stride = key_panel_capacity(n_kv);
      std::vector<int8_t> k8(k_heads.size()), v8(v_heads.size());
      std::vector<float> key_scales(scale_stride * n_head, NAN), value_scales(key_scales.size(), NAN);
      std::vector<float> k_dequantised(k.size()), v_dequantised(v.size());
      auto quantise = [&](float* scale, auto&& element, auto&& dequantised) {  // one key or value row
        float largest = 0.0f;
        for (int c = 0; c < d_head; ++c) largest = std::max(largest, std::fabs(element(c)));
        *scale = largest / 127.0f;
        for (int c = 0; c < d_head; ++c) {
          const int8_t x = static_cast<int8_t>(std::lrint(element(c) / *scale));
          dequantised(c, x) = *scale * x;
        }
      };
      for (int h = 0; h < n_head; ++h)
        for (int j = 0; j < n_kv; ++j) {
          const size_t row = static_cast<size_t>(j) * width + h * d_head;
          const size_t panel_at = h * cache.head_stride + static_cast<size_t>(j / kKeyPanel) * d_head * kKeyPanel + j % kKeyPanel;
          const size_t value_at = h * cache.head_stride + static_cast<size_t>(j) * d_head;
          quantise(&key_scales[h * scale_stride + j], [&](int c) { return k_heads[panel_at + c * kKeyPanel]; },
                   [&](int c, int8_t x) -> float& { k8[panel_at + c * kKeyPanel] = x; return k_dequantised[row + c]; });
          quantise(&value_scales[h * scale_stride + j], [&](int c) { return v_heads[value_at + c]; },
                   [&](int c, int8_t x) -> float& { v8[value_at + c] = x; return v_dequantised[row + c]; });
        }
      AttentionInput quantised = half;
      quantised.k_fp16 = quantised.v_fp16 = nullptr;
      quantised.k_int8 = k8.data();
      quantised.v_int8 = v8.data();
      quantised.key_scales = key_scales.data();
      quantised.value_scales = value_scales.data();
      quantised.scale_head_stride = scale_stride;
      attention(quantised, out.data(), width, scratch);
      const std::vector<float> expected_int8 = naive_attention(
          {q.data(), width, n_q, k_dequantised.data(), width, v_dequantised.data(), width, n_kv, n_head, d_head, -1});
      for (size_t i = 0; i < out.size(); ++i)
        ASSERT_NEAR(out[i], expected_int8[i], 1e-4f) << "int8, n_q " << n_q << " n_kv " << n_kv << " at " << i;
    }
}

// Many queries run tile by tile over the keys and chunk by chunk over the values, every block of
// queries inside; each score and each sum over the keys is still formed in the order a lone query's
// is, so every row equals, to the bit, the same query run by itself. Over the encoder's 1500 keys
// (many tiles and value chunks), 150 queries (whole and partial chunks and blocks), with and without
// a causal mask (blocks whose queries see different key counts).
TEST(Attention, ManyQueriesEqualEachQueryAloneToTheBit) {
  const int n_q = 150, n_kv = 1500, n_head = 2, d_head = 64, width = n_head * d_head;
  std::mt19937 rng(11);
  std::normal_distribution<float> dist;
  std::vector<float> q(static_cast<size_t>(n_q) * width), k(static_cast<size_t>(n_kv) * width), v(k.size());
  for (auto* buf : {&q, &k, &v})
    for (float& x : *buf) x = dist(rng);
  const HeadMajorCache cache(k, v, n_kv, n_head, d_head);
  for (int causal_offset : {-1, n_kv - n_q - 40}) {
    std::vector<float> together(q.size()), alone(width), scratch;
    attention(cache.input(q.data(), n_q, causal_offset), together.data(), width, scratch);
    for (int i = 0; i < n_q; ++i) {
      // Query i by itself sees what it saw among the others: keys up to i + causal_offset.
      attention(cache.input(q.data() + static_cast<size_t>(i) * width, 1, causal_offset < 0 ? -1 : causal_offset + i),
                alone.data(), width, scratch);
      for (int c = 0; c < width; ++c)
        ASSERT_EQ(together[static_cast<size_t>(i) * width + c], alone[c]) << "causal " << causal_offset << " query " << i << " at " << c;
    }
  }
}

// Beams over a shared prompt: each query attends over the prompt's keys and then its own, to the bit
// as attention() over a copy of its whole prefix does; up to 8 queries and more (two groups), prompts
// of every length mod 4 (the scores' groups of keys), a few own keys or more than a chunk of values, the own keys masked past the
// query's position or not, a head width with columns past the last whole vector, and keys and values
// with the heads side by side in each row or each head in its own run (the decoder's cache).
TEST(Attention, SharedPromptEqualsEachQueryOverItsWholePrefixToTheBit) {
  const int n_head = 3;
  for (int d_head : {64, 20})
  for (int n_q : {1, 2, 5, 8, 13})
    for (int n_prompt : {1, 17, 40, 66, 131})
      for (int n_own : {1, 6, 70})
        for (int own_causal_offset : {-1, n_own / 2}) {
          std::mt19937 rng(7 + n_q + n_prompt + n_own);
          std::normal_distribution<float> dist(0.0f, 2.0f);
          auto random = [&](size_t n) {
            std::vector<float> v(n);
            for (float& x : v) x = dist(rng);
            return v;
          };
          const int n_kv = n_prompt + n_own, width = n_head * d_head;
          const std::vector<float> q = random(static_cast<size_t>(n_q) * 3 * width);  // a fused QKV row's stride
          const std::vector<float> prompt_k = random(static_cast<size_t>(n_prompt) * width), prompt_v = random(prompt_k.size());
          std::vector<std::vector<float>> own_k, own_v;
          std::vector<const float*> own_k_rows, own_v_rows;
          for (int i = 0; i < n_q; ++i) {
            own_k.push_back(random(static_cast<size_t>(n_own) * width));
            own_v.push_back(random(own_k.back().size()));
          }
          for (int i = 0; i < n_q; ++i) {
            own_k_rows.push_back(own_k[i].data());
            own_v_rows.push_back(own_v[i].data());
          }
          // The same keys and values head-major: head h's run of `run` positions at h * run * d_head.
          const int run = n_kv + 3;
          auto by_head = [&](const std::vector<float>& rows, int n) {
            std::vector<float> runs(static_cast<size_t>(n_head) * run * d_head);
            for (int j = 0; j < n; ++j)
              for (int c = 0; c < width; ++c)
                runs[(static_cast<size_t>(c / d_head) * run + j) * d_head + c % d_head] = rows[static_cast<size_t>(j) * width + c];
            return runs;
          };
          const std::vector<float> prompt_k_runs = by_head(prompt_k, n_prompt), prompt_v_runs = by_head(prompt_v, n_prompt);
          std::vector<std::vector<float>> own_k_runs, own_v_runs;
          std::vector<const float*> own_k_run_starts, own_v_run_starts;
          for (int i = 0; i < n_q; ++i) {
            own_k_runs.push_back(by_head(own_k[i], n_own));
            own_v_runs.push_back(by_head(own_v[i], n_own));
          }
          for (int i = 0; i < n_q; ++i) {
            own_k_run_starts.push_back(own_k_runs[i].data());
            own_v_run_starts.push_back(own_v_runs[i].data());
          }
          std::vector<float> shared(static_cast<size_t>(n_q) * width), by_heads(shared.size()), alone(width), scratch;
          SharedPromptInput in{q.data(), 3 * width, n_q, prompt_k.data(), prompt_v.data(), n_prompt, own_k_rows.data(),
                               own_v_rows.data(), n_own, width, n_head, d_head, own_causal_offset};
          attention_over_shared_prompt(in, shared.data(), width, scratch);
          SharedPromptInput in_runs{q.data(), 3 * width, n_q, prompt_k_runs.data(), prompt_v_runs.data(), n_prompt,
                                    own_k_run_starts.data(), own_v_run_starts.data(), n_own, d_head, n_head, d_head,
                                    own_causal_offset, static_cast<long>(run) * d_head};
          attention_over_shared_prompt(in_runs, by_heads.data(), width, scratch);
          for (int i = 0; i < n_q; ++i) {
            std::vector<float> k = prompt_k, v = prompt_v;
            k.insert(k.end(), own_k[i].begin(), own_k[i].end());
            v.insert(v.end(), own_v[i].begin(), own_v[i].end());
            attention({q.data() + static_cast<size_t>(i) * 3 * width, 3 * width, 1, k.data(), width, v.data(), width, n_kv,
                       n_head, d_head, own_causal_offset < 0 ? -1 : n_prompt + own_causal_offset},
                      alone.data(), width, scratch);
            for (int c = 0; c < width; ++c) {
              ASSERT_EQ(shared[static_cast<size_t>(i) * width + c], alone[c])
                  << "d_head " << d_head << " n_q " << n_q << " prompt " << n_prompt << " own " << n_own << " causal " << own_causal_offset
                  << " query " << i << " at " << c;
              ASSERT_EQ(by_heads[static_cast<size_t>(i) * width + c], alone[c]) << "head-major, query " << i << " at " << c;
            }
          }
        }
}

}  // namespace
}  // namespace auris
