#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/cpu/attention.h"
#include "kernels/cpu/cpu_path.h"
#include "model/half_float.h"

namespace auris {
namespace {

float round_to_bf16(float x) { return bf16_to_float(float_to_bf16(x)); }

// The definition in bf16 products, as the AVX512-BF16 kernel forms it: queries, keys and values
// rounded to bf16, the scores and their softmax in double, and each weight rounded to bf16 for the
// weighted sum (its sum over the keys is of the unrounded weights).
std::vector<float> bf16_attention_definition(const AttentionInput& in) {
  const int width = in.n_head * in.d_head;
  std::vector<float> out(static_cast<size_t>(in.n_q) * width);
  for (int h = 0; h < in.n_head; ++h)
    for (int i = 0; i < in.n_q; ++i) {
      std::vector<double> p(in.n_kv);
      double max = -INFINITY, sum = 0;
      for (int j = 0; j < in.n_kv; ++j) {
        double dot = 0;
        for (int c = 0; c < in.d_head; ++c)
          dot += double(round_to_bf16(in.q[static_cast<size_t>(i) * in.ldq + h * in.d_head + c])) *
                 round_to_bf16(in.k[static_cast<size_t>(j) * in.ldk + h * in.d_head + c]);
        p[j] = dot / std::sqrt(double(in.d_head));
        max = std::max(max, p[j]);
      }
      for (double& x : p) sum += (x = std::exp(x - max));
      for (int c = 0; c < in.d_head; ++c) {
        double acc = 0;
        for (int j = 0; j < in.n_kv; ++j)
          acc += double(round_to_bf16(static_cast<float>(p[j]))) * round_to_bf16(in.v[static_cast<size_t>(j) * in.ldv + h * in.d_head + c]);
        out[static_cast<size_t>(i) * width + h * in.d_head + c] = static_cast<float>(acc / sum);
      }
    }
  return out;
}

bool runs_bf16_products() { return cpu_path() == CpuPath::kAvx512 && __builtin_cpu_supports("avx512bf16"); }

// The encoder's self-attention with bf16_products: queries in a fused QKV row (stride 3 widths),
// whole and partial units and blocks of queries (150), key counts that fill the last panel and pair or
// not, head widths 64 and 32. Where the CPU has AVX512-BF16 (and the AVX-512 path runs) it is the bf16
// definition, and not the fp32 result; elsewhere it is the fp32 result to the bit.
TEST(AttentionBf16, EncoderSelfAttentionInBf16ProductsWhereTheCpuHasThem) {
  if (!runs_bf16_products())
    std::printf("this CPU or path lacks AVX512-BF16: checking that the fp32 kernel runs instead\n");
  for (int d_head : {64, 32})
    for (int n_kv : {1500, 77}) {
      const int n_q = 150, n_head = 3, width = n_head * d_head, ld = 3 * width;
      std::mt19937 rng(5 + n_kv + d_head);
      std::normal_distribution<float> dist(0.0f, 1.5f);
      std::vector<float> qkv(static_cast<size_t>(std::max(n_q, n_kv)) * ld);
      for (float& x : qkv) x = dist(rng);
      AttentionInput in{qkv.data(), ld, n_q, qkv.data() + width, ld, qkv.data() + 2 * width, ld, n_kv, n_head, d_head};
      std::vector<float> fp32(static_cast<size_t>(n_q) * width), bf16(fp32.size()), scratch;
      attention(in, fp32.data(), width, scratch);
      in.bf16_products = true;
      attention(in, bf16.data(), width, scratch);
      if (!runs_bf16_products()) {
        for (size_t i = 0; i < bf16.size(); ++i) ASSERT_EQ(bf16[i], fp32[i]) << i;
        continue;
      }
      const std::vector<float> expected = bf16_attention_definition(in);
      // A weight near the top of a peaked softmax can round to the neighbouring bf16 from the kernel's
      // fp32 exp and from the definition's double one: a few outputs move by up to that ulp (2^-8 of
      // the weight) times their value; the rest agree to fp32's rounding.
      float largest_from_fp32 = 0.0f;
      double total_error = 0.0;
      for (size_t i = 0; i < bf16.size(); ++i) {
        ASSERT_NEAR(bf16[i], expected[i], 2e-2f) << "d_head " << d_head << " n_kv " << n_kv << " at " << i;
        total_error += std::fabs(bf16[i] - expected[i]);
        largest_from_fp32 = std::max(largest_from_fp32, std::fabs(bf16[i] - fp32[i]));
      }
      EXPECT_LT(total_error / bf16.size(), 5e-5) << "d_head " << d_head << " n_kv " << n_kv;
      EXPECT_GT(largest_from_fp32, 1e-4f) << "the bf16 products did not run";
      EXPECT_LT(largest_from_fp32, 0.1f);
    }
}

// A causal mask, or too few queries, keep fp32 whatever the CPU.
TEST(AttentionBf16, OtherShapesRunInFp32) {
  const int n_head = 2, d_head = 64, width = n_head * d_head;
  std::mt19937 rng(9);
  std::normal_distribution<float> dist;
  std::vector<float> x(static_cast<size_t>(100) * width);
  for (float& v : x) v = dist(rng);
  for (auto [n_q, causal] : {std::pair{100, 0}, std::pair{5, -1}}) {
    AttentionInput in{x.data(), width, n_q, x.data(), width, x.data(), width, 100, n_head, d_head, causal};
    std::vector<float> fp32(static_cast<size_t>(n_q) * width), bf16(fp32.size()), scratch;
    attention(in, fp32.data(), width, scratch);
    in.bf16_products = true;
    attention(in, bf16.data(), width, scratch);
    for (size_t i = 0; i < fp32.size(); ++i) ASSERT_EQ(bf16[i], fp32[i]) << "n_q " << n_q << " at " << i;
  }
}

}  // namespace
}  // namespace auris
