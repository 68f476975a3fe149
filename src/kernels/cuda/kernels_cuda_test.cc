// The CUDA kernels against the CPU kernels they mirror (src/kernels/cpu), in fp32 and fp16: layer
// norm (alone and fused with the residual add), bias + GELU, the residual add, row softmax with and
// without the causal mask, the decode attention over a self-attention cache's filled prefix and over
// a shared cross cache (with its query bias), the cache writes (with their biases) and row gathers,
// a decode step's tail (filters, log-softmax, choice), the step's gemv and what it fuses, cuBLAS's
// products, and the encoder's fused attention (ours and cuDNN's) in fp16 and bf16. Skipped, with the
// reason, where no CUDA device is present.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "decoding/step_proposals.h"
#include "decoding/step_rules.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/norm_activation.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/cudnn_attention.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/kernels.h"
#include "whisper/cuda/step_tail_rules.h"
#include "model/half_float.h"

namespace auris::cuda {
namespace {

class CudaKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!probe_device().usable) GTEST_SKIP() << "no usable CUDA device: " << probe_device().reason;
  }
  std::vector<float> random(size_t n, unsigned seed, float scale = 1.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
  }
  template <typename X>
  std::vector<X> download(const DeviceBuffer<X>& b, size_t n) {
    std::vector<X> host(n);
    b.download(host.data(), n);
    AURIS_CUDA_CHECK(cudaDeviceSynchronize());
    return host;
  }
  static std::vector<__half> to_half(const std::vector<float>& v) {
    std::vector<__half> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = __float2half(v[i]);
    return h;
  }
  static std::vector<float> from_half(const std::vector<__half>& h) {
    std::vector<float> v(h.size());
    for (size_t i = 0; i < h.size(); ++i) v[i] = __half2float(h[i]);
    return v;
  }
};

// softmax(q k^T / 8) v per head, in double from the rounded inputs, for the encoder's fused
// attention (ours or cuDNN's: attend(qkv, n, heads, out, ldo)): 1500 queries and keys (23 full
// tiles of 64 and a partial one) and 70 (one full, one partial).
template <typename T, typename Attend>
void check_encoder_attention(int n, float tolerance, const char* name, Attend attend) {
  const int heads = 3, width = heads * 64, ld = 3 * width;
  std::mt19937 rng(n);
  std::normal_distribution<float> dist(0.0f, 2.0f);
  std::vector<T> qkv(static_cast<size_t>(n) * ld);
  std::vector<float> rounded(qkv.size());
  for (size_t i = 0; i < qkv.size(); ++i) {
    qkv[i] = T(dist(rng));
    rounded[i] = static_cast<float>(qkv[i]);
  }
  DeviceBuffer<T> dqkv, dout(static_cast<size_t>(n) * width);
  dqkv.upload(qkv);
  attend(dqkv.data(), n, heads, dout.data(), width);
  std::vector<T> out(static_cast<size_t>(n) * width);
  dout.download(out.data(), out.size());
  AURIS_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> p(n);
  double worst = 0;
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < n; ++i) {
      double top = -1e300, sum = 0;
      for (int j = 0; j < n; ++j) {
        double dot = 0;
        for (int d = 0; d < 64; ++d) dot += rounded[size_t(i) * ld + h * 64 + d] * rounded[size_t(j) * ld + width + h * 64 + d];
        p[j] = dot * 0.125;
        top = std::max(top, p[j]);
      }
      for (int j = 0; j < n; ++j) sum += p[j] = std::exp(p[j] - top);
      for (int d = 0; d < 64; ++d) {
        double expected = 0;
        for (int j = 0; j < n; ++j) expected += p[j] * rounded[size_t(j) * ld + 2 * width + h * 64 + d];
        expected /= sum;
        const double got = static_cast<float>(out[size_t(i) * width + h * 64 + d]);
        worst = std::max(worst, std::abs(got - expected));
        ASSERT_NEAR(got, expected, tolerance) << "n " << n << " head " << h << " query " << i << " dim " << d;
      }
    }
  std::printf("%s n=%d: largest difference %.2e\n", name, n, worst);
}

template <typename T>
void check_our_encoder_attention(int n, float tolerance) {
  check_encoder_attention<T>(n, tolerance, "encoder_attention", [](const T* qkv, int n, int heads, T* out, int ldo) {
    encoder_attention<T>(qkv, n, heads, 0.125f, out, ldo, nullptr);
  });
}

template <typename T>
void check_cudnn_encoder_attention(CudnnAttention& cudnn, int n, float tolerance) {
  check_encoder_attention<T>(n, tolerance, "cuDNN attention", [&](const T* qkv, int n, int heads, T* out, int ldo) {
    cudnn.encoder_attention<T>(qkv, n, heads, 0.125f, out, ldo);
  });
}

TEST_F(CudaKernels, EncoderAttentionMatchesDefinitionInHalfPrecision) {
  check_our_encoder_attention<__half>(70, 2e-2f);
  check_our_encoder_attention<__half>(1500, 2e-2f);
}

TEST_F(CudaKernels, EncoderAttentionMatchesDefinitionInBfloat16) {
  check_our_encoder_attention<__nv_bfloat16>(70, 8e-2f);
  check_our_encoder_attention<__nv_bfloat16>(1500, 8e-2f);
}

// cuDNN's fused attention against the same definition, in both types; skipped, with the reason,
// where cuDNN cannot be opened.
TEST_F(CudaKernels, CudnnEncoderAttentionMatchesDefinition) {
  if (const std::string reason = CudnnAttention::unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  CudnnAttention cudnn(nullptr);
  check_cudnn_encoder_attention<__half>(cudnn, 70, 2e-2f);
  check_cudnn_encoder_attention<__half>(cudnn, 1500, 2e-2f);
  check_cudnn_encoder_attention<__nv_bfloat16>(cudnn, 70, 8e-2f);
  check_cudnn_encoder_attention<__nv_bfloat16>(cudnn, 1500, 8e-2f);
}

TEST_F(CudaKernels, LayerNormMatchesCpu) {
  const int rows = 7, n = 1280;
  const std::vector<float> x = random(static_cast<size_t>(rows) * n, 1, 3.0f), gamma = random(n, 2), beta = random(n, 3);
  std::vector<float> expected(x.size());
  ::auris::layer_norm(x.data(), rows, n, gamma.data(), beta.data(), expected.data());
  DeviceBuffer<float> dx, dg, db, dy(x.size());
  dx.upload(x), dg.upload(gamma), db.upload(beta);
  cuda::layer_norm<float>(dx.data(), rows, n, dg.data(), db.data(), dy.data(), nullptr);
  const std::vector<float> y = download(dy, x.size());
  for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], expected[i], 1e-4f) << i;
}

// The fused kernel gives the same bits as the residual add followed by the layer norm, and x ends
// updated as add_to_residual leaves it; in fp16, whose normed output is rounded.
TEST_F(CudaKernels, ResidualLayerNormEqualsAddThenLayerNorm) {
  const int rows = 5, n = 1280;
  const std::vector<float> x0 = random(static_cast<size_t>(rows) * n, 30, 2.0f), y = random(x0.size(), 31);
  const std::vector<float> bias = random(n, 32), gamma = random(n, 33), beta = random(n, 34);
  DeviceBuffer<float> dx_fused, dx_apart, db, dg, dbeta;
  DeviceBuffer<__half> dy, normed_fused(x0.size()), normed_apart(x0.size());
  dx_fused.upload(x0), dx_apart.upload(x0), dy.upload(to_half(y)), db.upload(bias), dg.upload(gamma), dbeta.upload(beta);
  residual_layer_norm<__half>(dx_fused.data(), dy.data(), db.data(), rows, n, dg.data(), dbeta.data(),
                              normed_fused.data(), nullptr);
  add_to_residual<__half>(dx_apart.data(), dy.data(), db.data(), rows, n, nullptr);
  layer_norm<__half>(dx_apart.data(), rows, n, dg.data(), dbeta.data(), normed_apart.data(), nullptr);
  const std::vector<float> x_fused = download(dx_fused, x0.size()), x_apart = download(dx_apart, x0.size());
  const std::vector<float> fused = from_half(download(normed_fused, x0.size()));
  const std::vector<float> apart = from_half(download(normed_apart, x0.size()));
  for (size_t i = 0; i < x0.size(); ++i) {
    ASSERT_EQ(x_fused[i], x_apart[i]) << i;
    ASSERT_EQ(fused[i], apart[i]) << i;
  }
  std::vector<float> expected(x0.size());
  ::auris::layer_norm(x_apart.data(), rows, n, gamma.data(), beta.data(), expected.data());
  for (size_t i = 0; i < expected.size(); ++i) ASSERT_NEAR(fused[i], expected[i], 2e-2f) << i;
}

TEST_F(CudaKernels, BiasGeluAndResidualMatchCpu) {
  const int rows = 5, n = 96;
  const std::vector<float> y0 = random(static_cast<size_t>(rows) * n, 4, 2.0f), bias = random(n, 5);
  std::vector<float> expected = y0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < n; ++c) expected[static_cast<size_t>(r) * n + c] += bias[c];
  ::auris::gelu_inplace(expected.data(), static_cast<long>(expected.size()));
  DeviceBuffer<float> dy, db;
  dy.upload(y0), db.upload(bias);
  bias_gelu<float>(dy.data(), db.data(), rows, n, n, nullptr);
  const std::vector<float> y = download(dy, y0.size());
  for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], expected[i], 1e-5f) << i;

  DeviceBuffer<float> dx;
  const std::vector<float> x0 = random(y0.size(), 6);
  dx.upload(x0);
  add_to_residual<float>(dx.data(), dy.data(), db.data(), rows, n, nullptr);
  const std::vector<float> x = download(dx, x0.size());
  for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], x0[i] + y[i] + bias[i % n], 1e-5f) << i;
}

// A convolution's epilogue in one pass gives the bits of bias_gelu followed by convert (fp16, with
// and without the positions added).
TEST_F(CudaKernels, BiasGeluToFloatEqualsBiasGeluThenConvert) {
  const int rows = 6, n = 384;
  const std::vector<float> y = random(static_cast<size_t>(rows) * n, 70, 2.0f), bias = random(n, 71), add = random(y.size(), 72);
  DeviceBuffer<__half> dy, apart;
  DeviceBuffer<float> dbias, dadd, fused(y.size()), converted(y.size());
  dy.upload(to_half(y)), apart.upload(to_half(y)), dbias.upload(bias), dadd.upload(add);
  bias_gelu<__half>(apart.data(), dbias.data(), rows, n, n, nullptr);
  for (const float* with : {static_cast<const float*>(nullptr), static_cast<const float*>(dadd.data())}) {
    bias_gelu_to_float<__half>(dy.data(), dbias.data(), with, rows, n, fused.data(), nullptr);
    convert<__half, float>(apart.data(), with, static_cast<long>(y.size()), converted.data(), nullptr);
    const std::vector<float> a = download(fused, y.size()), b = download(converted, y.size());
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i], b[i]) << (with ? "with positions " : "") << i;
  }
}

TEST_F(CudaKernels, SoftmaxRowsMatchCpuWithAndWithoutCausalMask) {
  const int heads = 3, n = 37;
  const std::vector<float> scores = random(static_cast<size_t>(heads) * n * n, 7, 4.0f);
  DeviceBuffer<float> ds, dp(scores.size());
  ds.upload(scores);
  for (int causal : {-1, 0}) {
    softmax_rows<float>(ds.data(), heads * n, n, 0.5f, dp.data(), nullptr, n, causal);
    const std::vector<float> p = download(dp, scores.size());
    for (int r = 0; r < heads * n; ++r) {
      std::vector<float> row(scores.begin() + static_cast<long>(r) * n, scores.begin() + static_cast<long>(r + 1) * n);
      for (float& v : row) v *= 0.5f;
      const int visible = causal < 0 ? n : r % n + 1;
      ::auris::softmax_inplace(row.data(), visible);
      for (int c = 0; c < n; ++c)
        ASSERT_NEAR(p[static_cast<size_t>(r) * n + c], c < visible ? row[c] : 0.0f, 1e-6f) << r << "," << c;
    }
  }
}

// One query per row (plus its bias) against a self-attention cache [rows][capacity][width] of which
// only the first n_kv positions are filled (the rest holds junk the kernel must not read), and against
// a shared cross cache [heads][capacity][64]; compared with the CPU attention over the same keys.
// Each shape runs twice: the cross cache's split-combining tickets must be left ready for a replay.
TEST_F(CudaKernels, DecodeAttentionReadsOnlyTheFilledPrefix) {
  const int rows = 3, heads = 4, d = 64, width = heads * d;
  for (bool shared : {false, true}) {
    for (int n_kv : shared ? std::vector<int>{1500} : std::vector<int>{1, 17, 130, 448}) {
      const int capacity = shared ? 1500 : 448;
      const std::vector<float> q = random(static_cast<size_t>(rows) * width, 8 + n_kv), bias = random(width, 20);
      const size_t cache_size = shared ? static_cast<size_t>(heads) * capacity * d : static_cast<size_t>(rows) * capacity * width;
      std::vector<float> k = random(cache_size, 9), v = random(cache_size, 10);
      if (!shared)  // junk past the prefix: a kernel that reads it returns NaN
        for (int r = 0; r < rows; ++r)
          for (size_t i = (static_cast<size_t>(r) * capacity + n_kv) * width; i < static_cast<size_t>(r + 1) * capacity * width; ++i)
            k[i] = v[i] = NAN;
      const DecodeAttentionShape shape{rows, heads, capacity, shared};
      DeviceBuffer<float> dq, dbias, dk, dv, dout(q.size()), scratch(decode_attention_scratch(shape));
      DeviceBuffer<int> length, tickets(decode_attention_tickets(shape));
      AURIS_CUDA_CHECK(cudaMemset(tickets.data(), 0, tickets.size() * sizeof(int)));
      dq.upload(q), dbias.upload(bias), dk.upload(k), dv.upload(v), length.upload(std::vector<int>(rows, n_kv));
      std::vector<float> biased = q;
      for (size_t i = 0; i < biased.size(); ++i) biased[i] += bias[i % width];
      std::vector<float> expected(q.size()), attention_scratch;
      for (int r = 0; r < rows; ++r) {
        AttentionInput in{biased.data() + static_cast<size_t>(r) * width, width, 1, nullptr, width, nullptr, width, n_kv, heads, d};
        if (shared) {
          in.k = k.data(), in.v = v.data(), in.ldk = in.ldv = d;
          in.k_head_stride = in.v_head_stride = static_cast<long>(capacity) * d;
        } else {
          in.k = k.data() + static_cast<size_t>(r) * capacity * width;
          in.v = v.data() + static_cast<size_t>(r) * capacity * width;
        }
        ::auris::attention(in, expected.data() + static_cast<size_t>(r) * width, width, attention_scratch);
      }
      for (int run = 0; run < 2; ++run) {
        AURIS_CUDA_CHECK(cudaMemset(dout.data(), 0xff, dout.size() * sizeof(float)));  // NaN until written
        decode_attention<float>(dq.data(), width, dbias.data(), dk.data(), dv.data(), length.data(), length.data(), nullptr,
                                shape, scratch.data(), tickets.data(), dout.data(), width, nullptr);
        const std::vector<float> out = download(dout, q.size());
        for (size_t i = 0; i < out.size(); ++i)
          ASSERT_NEAR(out[i], expected[i], 1e-4f) << (shared ? "cross " : "self ") << n_kv << " keys, run " << run << ", " << i;
      }
      // A one-row launch after the three-row ones (a greedy decode after a beam search): the
      // tickets of (row 0, head) are where they were.
      if (shared) {
        AURIS_CUDA_CHECK(cudaMemset(dout.data(), 0xff, dout.size() * sizeof(float)));
        decode_attention<float>(dq.data(), width, dbias.data(), dk.data(), dv.data(), length.data(), length.data(), nullptr,
                                {1, heads, capacity, true}, scratch.data(), tickets.data(), dout.data(), width, nullptr);
        const std::vector<float> out = download(dout, width);
        for (int i = 0; i < width; ++i) ASSERT_NEAR(out[i], expected[i], 1e-4f) << "one row after three, " << i;
      }
    }
  }
}

// The rows of several windows in one launch (a batched step): each self-attention row at its own
// length in its own cache row, each cross-attention row over its own window's keys.
TEST_F(CudaKernels, DecodeAttentionTakesEachRowsLengthAndWindow) {
  const int rows = 3, heads = 2, d = 64, width = heads * d;
  const std::vector<int> lengths{5, 130, 1}, windows{1, 0, 1}, cache_rows{3, 0, 2};
  const std::vector<float> q = random(static_cast<size_t>(rows) * width, 60);
  for (bool shared : {false, true}) {
    const int capacity = shared ? 1500 : 448, n_windows = 2;
    const long window_stride = static_cast<long>(heads) * capacity * d;
    const size_t cache_size = shared ? n_windows * window_stride : static_cast<size_t>(4) * capacity * width;
    const std::vector<float> k = random(cache_size, 61), v = random(cache_size, 62);
    DecodeAttentionShape shape{rows, heads, capacity, shared, shared ? window_stride : 0};
    DeviceBuffer<float> dq, dk, dv, dout(q.size()), scratch(decode_attention_scratch(shape));
    DeviceBuffer<int> dlengths, dsources, tickets(decode_attention_tickets(shape));
    AURIS_CUDA_CHECK(cudaMemset(tickets.data(), 0, tickets.size() * sizeof(int)));
    const std::vector<int> n_kv = shared ? std::vector<int>(rows, capacity) : lengths;
    dq.upload(q), dk.upload(k), dv.upload(v), dlengths.upload(n_kv), dsources.upload(shared ? windows : cache_rows);
    decode_attention<float>(dq.data(), width, nullptr, dk.data(), dv.data(), dlengths.data(), dlengths.data(),
                            dsources.data(), shape, scratch.data(), tickets.data(), dout.data(), width, nullptr);
    const std::vector<float> out = download(dout, q.size());
    std::vector<float> expected(width), attention_scratch;
    for (int r = 0; r < rows; ++r) {
      AttentionInput in{q.data() + static_cast<size_t>(r) * width, width, 1, nullptr, width, nullptr, width, n_kv[r], heads, d};
      if (shared) {
        in.k = k.data() + windows[r] * window_stride, in.v = v.data() + windows[r] * window_stride, in.ldk = in.ldv = d;
        in.k_head_stride = in.v_head_stride = static_cast<long>(capacity) * d;
      } else {
        in.k = k.data() + static_cast<size_t>(cache_rows[r]) * capacity * width;
        in.v = v.data() + static_cast<size_t>(cache_rows[r]) * capacity * width;
      }
      ::auris::attention(in, expected.data(), width, attention_scratch);
      for (int i = 0; i < width; ++i)
        ASSERT_NEAR(out[static_cast<size_t>(r) * width + i], expected[i], 1e-4f) << (shared ? "cross" : "self") << " row " << r;
    }
  }
}

TEST_F(CudaKernels, DecodeAttentionInHalfPrecision) {
  const int rows = 2, heads = 2, d = 64, width = heads * d, capacity = 448, n_kv = 77;
  const std::vector<float> q = random(static_cast<size_t>(rows) * width, 11);
  const std::vector<float> k = random(static_cast<size_t>(rows) * capacity * width, 12);
  const std::vector<float> v = random(k.size(), 13);
  DeviceBuffer<__half> dq, dk, dv, dout(q.size());
  DeviceBuffer<float> partial(decode_attention_scratch({rows, heads, capacity, false}));
  DeviceBuffer<int> length;
  dq.upload(to_half(q)), dk.upload(to_half(k)), dv.upload(to_half(v)), length.upload(std::vector<int>(rows, n_kv));
  decode_attention<__half>(dq.data(), width, nullptr, dk.data(), dv.data(), length.data(), length.data(), nullptr,
                           {rows, heads, capacity, false}, partial.data(), nullptr, dout.data(), width, nullptr);
  const std::vector<float> out = from_half(download(dout, q.size()));
  std::vector<float> expected(q.size()), scratch;
  for (int r = 0; r < rows; ++r)
    ::auris::attention({q.data() + static_cast<size_t>(r) * width, width, 1, k.data() + static_cast<size_t>(r) * capacity * width,
               width, v.data() + static_cast<size_t>(r) * capacity * width, width, n_kv, heads, d},
              expected.data() + static_cast<size_t>(r) * width, width, scratch);
  for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], expected[i], 2e-2f) << i;
}

TEST_F(CudaKernels, CacheWritesAndRowGathers) {
  const int width = 8, capacity = 6, n = 3;
  const std::vector<float> qkv = random(static_cast<size_t>(n) * 3 * width, 14);
  DeviceBuffer<float> dqkv, k(static_cast<size_t>(4) * capacity * width), v(k.size()), gathered(k.size());
  DeviceBuffer<int> rows, positions, sources;
  dqkv.upload(qkv), rows.upload(std::vector<int>{2, 0, 3}), positions.upload(std::vector<int>{1, 4, 0});
  AURIS_CUDA_CHECK(cudaMemset(k.data(), 0, k.size() * sizeof(float)));
  append_kv<float>(dqkv.data(), n, 3 * width, width, nullptr, rows.data(), positions.data(), k.data(), v.data(), capacity,
                   nullptr);
  const std::vector<float> hk = download(k, k.size());
  EXPECT_EQ(hk[(2 * capacity + 1) * width + 5], qkv[width + 5]);
  EXPECT_EQ(hk[(0 * capacity + 4) * width + 0], qkv[3 * width + width]);
  // With the projection's bias: K and V take theirs (the Q part of the bias is not theirs).
  const std::vector<float> bias = random(3 * width, 21);
  DeviceBuffer<float> dbias, kb(k.size()), vb(k.size());
  dbias.upload(bias);
  append_kv<float>(dqkv.data(), n, 3 * width, width, dbias.data(), rows.data(), positions.data(), kb.data(), vb.data(),
                   capacity, nullptr);
  const std::vector<float> hkb = download(kb, kb.size()), hvb = download(vb, vb.size());
  EXPECT_EQ(hkb[(2 * capacity + 1) * width + 5], qkv[width + 5] + bias[width + 5]);
  EXPECT_EQ(hvb[(0 * capacity + 4) * width + 3], qkv[3 * width + 2 * width + 3] + bias[2 * width + 3]);
  sources.upload(std::vector<int>{2, 2, 0});
  gather_cache_rows<float>(k.data(), gathered.data(), sources.data(), 3, 2, capacity, width, nullptr);
  const std::vector<float> hg = download(gathered, gathered.size());
  for (int c = 0; c < width; ++c) {
    EXPECT_EQ(hg[(0 * capacity + 1) * width + c], hk[(2 * capacity + 1) * width + c]);
    EXPECT_EQ(hg[(1 * capacity + 1) * width + c], hk[(2 * capacity + 1) * width + c]);
  }
}

// The step's tail against the host's filters and choice (decoding/step_rules.h, step_proposals.h) on
// the same rules: masked tokens and ranges, the timestamp rule taken (row 1) and not, equal maxima
// (row 0: the lower index first), a row masked whole (row 4: NaN log-probabilities, the first tokens),
// greedy's argmax and beam search's 6 best log-probabilities.
TEST_F(CudaKernels, StepTailChoosesAsTheHost) {
  const int rows = 5, n = 51866, tb = 50365;
  std::vector<float> x = random(static_cast<size_t>(rows) * n, 15, 3.0f);
  x[1234] = 50.0f, x[40000] = 50.0f;                                  // row 0: equal maxima
  for (int c = tb; c < n; ++c) x[static_cast<size_t>(n) + c] = 11.0f;  // row 1: timestamps outweigh text
  x[2 * static_cast<size_t>(n) + 777] = 60.0f;                         // row 2: its best is masked
  StepRules rules;
  rules.row_masks.resize(rows);
  rules.masked_tokens = {220, 50257, 7};
  rules.row_masks[0] = {{50364, 50365}, {tb + 20, std::numeric_limits<int>::max()}};
  rules.row_masks[2] = {{700, 800}};
  rules.row_masks[3] = {{0, tb}, {tb, tb + 3}};
  rules.row_masks[4] = {{0, std::numeric_limits<int>::max()}};
  rules.timestamp_begin = tb;
  DeviceBuffer<float> logits, masked(static_cast<size_t>(rows) * n), logprobs(rows * kStepTailMaxK);
  DeviceBuffer<int> tokens(rows * kStepTailMaxK);
  DeviceBuffer<StepTailInputs> in(1);
  logits.upload(x);
  for (auto [selection, k] : {std::pair{Selection::kArgmax, 1}, std::pair{Selection::kTopLogprobs, 6}}) {
    std::vector<float> filtered = x;
    apply_step_rules(rules, filtered, n);
    StepProposals expected;
    propose_on_host(filtered, rows, n, selection, k, expected);
    StepTailInputs packed;
    ASSERT_TRUE(pack_step_tail({&rules}, selection, k, packed));
    AURIS_CUDA_CHECK(cudaMemcpy(in.data(), &packed, sizeof(packed), cudaMemcpyHostToDevice));
    step_tail(logits.data(), rows, n, in.data(), masked.data(), tokens.data(), logprobs.data(), nullptr);
    const std::vector<int> got = download(tokens, rows * k);
    const std::vector<float> got_logprobs = download(logprobs, rows * k);
    EXPECT_EQ(got, expected.tokens) << "k " << k;
    for (int i = 0; i < rows * k; ++i) {
      if (std::isnan(expected.logprobs[i])) {
        EXPECT_TRUE(std::isnan(got_logprobs[i])) << "k " << k << " at " << i;
      } else {
        EXPECT_NEAR(got_logprobs[i], expected.logprobs[i], 1e-4f) << "k " << k << " at " << i;
      }
    }
    if (selection == Selection::kArgmax) {
      EXPECT_EQ(got[0], 1234);
      EXPECT_GE(got[1], tb) << "the timestamp rule";
      EXPECT_NE(got[2], 777);
    }
  }
}

// What the tail's arrays cannot hold is left to the host.
TEST(StepTailRules, PackOnlyWhatFits) {
  StepTailInputs packed;
  StepRules rules;
  rules.row_masks.resize(2);
  auto pack = [&](Selection selection, int k) { return pack_step_tail({&rules}, selection, k, packed); };
  EXPECT_TRUE(pack(Selection::kTopLogprobs, kStepTailMaxK));
  EXPECT_FALSE(pack(Selection::kTopLogprobs, kStepTailMaxK + 1)) << "beams past 16";
  EXPECT_FALSE(pack(Selection::kArgmax, 2));
  rules.row_masks[1].resize(kStepTailMaxRanges + 1);
  EXPECT_FALSE(pack(Selection::kArgmax, 1));
  rules.row_masks[1].clear();
  rules.masked_tokens.resize(kStepTailMaxMaskedTokens + 1);
  for (int i = 0; i <= kStepTailMaxMaskedTokens; ++i) rules.masked_tokens[i] = i;
  EXPECT_FALSE(pack(Selection::kArgmax, 1));
  rules.masked_tokens = {9, 10, 11};
  rules.row_masks.resize(kStepTailMaxRows + 1);
  EXPECT_FALSE(pack(Selection::kArgmax, 1));
  rules.row_masks.resize(1);
  rules.row_masks[0] = {{5, 9}};
  ASSERT_TRUE(pack(Selection::kArgmax, 1));
  EXPECT_EQ(packed.n_masked_tokens, 3);
  EXPECT_EQ(packed.n_ranges[0], 1);
  EXPECT_EQ(packed.ranges[0][0][1], 9);
  EXPECT_EQ(packed.timestamp_begin, -1);
  EXPECT_EQ(packed.argmax, 1);
  EXPECT_FALSE(pack_step_tail({}, Selection::kArgmax, 1, packed));
}

// A batch's step packs every window's rules: each row masks exactly what its own window's rules
// mask (the tokens all windows mask shared, a window's others as its rows' ranges, as a window at
// its first step adds the blank tokens); windows whose timestamp rules differ go to the host.
TEST(StepTailRules, WindowsKeepTheirOwnMasks) {
  StepRules first, second, third;
  first.masked_tokens = {3, 7, 220, 50256};  // suppress_blank's tokens on top of the shared ones
  first.row_masks = {{{100, 200}}, {}};
  second.masked_tokens = {7, 3};
  second.row_masks = {{{0, 2}}};
  third.masked_tokens = {3, 7, 8};
  third.row_masks = {{}, {{400, 2147483647}}};
  StepTailInputs packed;
  ASSERT_TRUE(pack_step_tail({&first, &second, &third}, Selection::kTopLogprobs, 6, packed));
  const int n_vocab = 51864;
  auto masked_by_packed = [&](int row) {
    std::vector<bool> masked(n_vocab, false);
    for (int i = 0; i < packed.n_masked_tokens; ++i) masked[packed.masked_tokens[i]] = true;
    for (int i = 0; i < packed.n_ranges[row]; ++i)
      for (int t = std::max(0, packed.ranges[row][i][0]); t < std::min(n_vocab, packed.ranges[row][i][1]); ++t) masked[t] = true;
    return masked;
  };
  auto masked_by_rules = [&](const StepRules& rules, int row) {
    std::vector<float> logits(static_cast<size_t>(rules.row_masks.size()) * n_vocab, 0.0f);
    apply_step_rules(rules, logits, n_vocab);
    std::vector<bool> masked(n_vocab);
    for (int t = 0; t < n_vocab; ++t) masked[t] = std::isinf(logits[static_cast<size_t>(row) * n_vocab + t]);
    return masked;
  };
  int row = 0;
  for (const StepRules* rules : {&first, &second, &third})
    for (size_t r = 0; r < rules->row_masks.size(); ++r, ++row)
      EXPECT_EQ(masked_by_packed(row), masked_by_rules(*rules, static_cast<int>(r))) << "row " << row;
  EXPECT_EQ(packed.n_masked_tokens, 2) << "3 and 7, the tokens every window masks";
  EXPECT_EQ(packed.k, 6);
  second.timestamp_begin = 50364;
  EXPECT_FALSE(pack_step_tail({&first, &second}, Selection::kTopLogprobs, 6, packed));
}

// The decode step's products for 1 to kGemvMaxRows rows, with and without bias and GELU, in fp32
// (to the definition in double) and fp16 (to it within half precision); x has a row stride past its
// width, and the output row stride is wider than the output.
TEST_F(CudaKernels, GemvMatchesDefinition) {
  const int in = 200, ldx = 208, out = 37, ldy = 41;
  for (int rows : {1, 2, 3, 5, kGemvMaxRows}) {
    for (bool with_bias : {false, true}) {
      const std::vector<float> x = random(static_cast<size_t>(rows) * ldx, 40 + rows, 0.5f), w = random(static_cast<size_t>(out) * in, 41, 0.5f);
      const std::vector<float> bias = random(out, 42);
      std::vector<double> exact(static_cast<size_t>(rows) * out);
      for (int r = 0; r < rows; ++r)
        for (int o = 0; o < out; ++o) {
          double sum = with_bias ? bias[o] : 0.0;
          for (int i = 0; i < in; ++i) sum += double(x[static_cast<size_t>(r) * ldx + i]) * w[static_cast<size_t>(o) * in + i];
          exact[static_cast<size_t>(r) * out + o] = sum;
        }
      DeviceBuffer<float> dx, dw, db, dy(static_cast<size_t>(rows) * ldy);
      DeviceBuffer<__half> hx, hw, hy(static_cast<size_t>(rows) * ldy);
      dx.upload(x), dw.upload(w), db.upload(bias), hx.upload(to_half(x)), hw.upload(to_half(w));
      for (bool gelu_after : {false, true}) {
        const float* b = with_bias ? db.data() : nullptr;
        auto product = [&](auto* x, auto* w, auto* y) {
          Gemv<std::remove_pointer_t<decltype(x)>> g;
          g.rows = rows, g.in = in, g.out = out, g.w = w, g.x = x, g.ldx = ldx;
          g.bias = b, g.gelu_after = gelu_after, g.y = y, g.ldy = ldy;
          gemv(g, nullptr);
        };
        product(dx.data(), dw.data(), dy.data());
        product(hx.data(), hw.data(), hy.data());
        const std::vector<float> y = download(dy, dy.size()), yh = from_half(download(hy, hy.size()));
        for (int r = 0; r < rows; ++r)
          for (int o = 0; o < out; ++o) {
            const double e = exact[static_cast<size_t>(r) * out + o];
            const double expected = gelu_after ? 0.5 * e * (1.0 + std::erf(e / std::sqrt(2.0))) : e;
            const size_t at = static_cast<size_t>(r) * ldy + o;
            ASSERT_NEAR(y[at], expected, 1e-4) << rows << " rows, bias " << with_bias << ", gelu " << gelu_after << ": " << r << "," << o;
            ASSERT_NEAR(yh[at], expected, 2e-2 * (1.0 + std::abs(expected))) << rows << " rows (fp16): " << r << "," << o;
          }
      }
    }
  }
}

// What a fused decode step runs inside its gemv kernels gives what the kernels it replaces give: the
// layer norm before a projection (fp16: the normed input rounded as layer_norm writes it; the
// statistics summed in another order, so within a rounding), the residual add after one (the same
// bits as residual_layer_norm's add), the cache write after the fused Q|K|V projection (as
// append_kv), and the logits in fp32 from fp16 weights.
TEST_F(CudaKernels, GemvFusionsMatchTheKernelsTheyReplace) {
  const int width = 64, capacity = 5;
  for (int rows : {1, 3, kGemvMaxRows}) {
    const int in = width, out = 3 * width;
    const std::vector<float> x = random(static_cast<size_t>(rows) * in, 50 + rows, 2.0f), w = random(static_cast<size_t>(out) * in, 51, 0.3f);
    const std::vector<float> gamma = random(in, 52), beta = random(in, 53), bias = random(out, 54);
    DeviceBuffer<float> dx, dg, dbeta, dbias;
    DeviceBuffer<__half> hw, normed(x.size()), apart(static_cast<size_t>(rows) * out), fused(apart.size());
    dx.upload(x), dg.upload(gamma), dbeta.upload(beta), dbias.upload(bias), hw.upload(to_half(w));
    std::vector<int> cache_rows(rows), positions(rows);
    for (int r = 0; r < rows; ++r) cache_rows[r] = rows - 1 - r, positions[r] = r % capacity;
    DeviceBuffer<int> drows, dpositions;
    drows.upload(cache_rows), dpositions.upload(positions);
    const size_t cache_size = static_cast<size_t>(rows) * capacity * width;
    DeviceBuffer<__half> k_apart(cache_size), v_apart(cache_size), k_fused(cache_size), v_fused(cache_size);
    for (auto* c : {&k_apart, &v_apart, &k_fused, &v_fused}) AURIS_CUDA_CHECK(cudaMemset(c->data(), 0, cache_size * 2));

    // Apart: layer_norm, the gemv, append_kv.
    layer_norm<__half>(dx.data(), rows, in, dg.data(), dbeta.data(), normed.data(), nullptr);
    Gemv<__half> g;
    g.rows = rows, g.in = in, g.out = out, g.w = hw.data(), g.x = normed.data(), g.ldx = in, g.y = apart.data(), g.ldy = out;
    gemv(g, nullptr);
    append_kv<__half>(apart.data(), rows, out, width, dbias.data(), drows.data(), dpositions.data(), k_apart.data(),
                      v_apart.data(), capacity, nullptr);
    // Fused: one gemv.
    Gemv<__half> f = g;
    f.x = nullptr, f.normed_from = dx.data(), f.gamma = dg.data(), f.beta = dbeta.data(), f.y = fused.data();
    f.k_cache = k_fused.data(), f.v_cache = v_fused.data(), f.cache_bias = dbias.data();
    f.cache_rows = drows.data(), f.positions = dpositions.data(), f.capacity = capacity;
    gemv(f, nullptr);
    const std::vector<float> ya = from_half(download(apart, apart.size())), yf = from_half(download(fused, fused.size()));
    for (size_t i = 0; i < ya.size(); ++i) ASSERT_NEAR(yf[i], ya[i], 2e-2f * (1.0f + std::abs(ya[i]))) << rows << " rows: " << i;
    for (auto [a, b] : {std::pair{&k_apart, &k_fused}, std::pair{&v_apart, &v_fused}}) {
      const std::vector<float> ca = from_half(download(*a, cache_size)), cf = from_half(download(*b, cache_size));
      for (size_t i = 0; i < ca.size(); ++i) ASSERT_NEAR(cf[i], ca[i], 2e-2f * (1.0f + std::abs(ca[i]))) << rows << " rows, cache " << i;
      double written = 0;
      for (float v : cf) written += std::abs(v);
      EXPECT_GT(written, 0.0) << "the fused gemv wrote the cache";
    }

    // The residual add: out = width columns from `normed`, into x, as residual_layer_norm adds them.
    Gemv<__half> r = g;
    r.out = width, r.y = nullptr, r.bias = dbias.data();
    DeviceBuffer<float> x_fused, x_apart;
    x_fused.upload(x), x_apart.upload(x);
    r.residual = x_fused.data();
    gemv(r, nullptr);
    Gemv<__half> plain = g;
    plain.out = width, plain.y = apart.data(), plain.ldy = width;
    gemv(plain, nullptr);
    residual_layer_norm<__half>(x_apart.data(), apart.data(), dbias.data(), rows, width, dg.data(), dbeta.data(),
                                normed.data(), nullptr);
    const std::vector<float> xa = download(x_apart, x.size()), xf = download(x_fused, x.size());
    for (size_t i = 0; i < xa.size(); ++i) ASSERT_EQ(xf[i], xa[i]) << rows << " rows, residual " << i;

    // Logits: fp16 weights, fp32 out, from the normed stream, against the definition in double.
    Gemv<__half, float> l;
    DeviceBuffer<float> logits(static_cast<size_t>(rows) * out);
    l.rows = rows, l.in = in, l.out = out, l.w = hw.data(), l.normed_from = dx.data(), l.gamma = dg.data(),
    l.beta = dbeta.data(), l.y = logits.data(), l.ldy = out;
    gemv(l, nullptr);
    const std::vector<float> hl = download(logits, logits.size());
    std::vector<float> exact_normed(x.size());
    ::auris::layer_norm(x.data(), rows, in, gamma.data(), beta.data(), exact_normed.data());
    for (int row = 0; row < rows; ++row)
      for (int o = 0; o < out; ++o) {
        double e = 0;
        for (int i = 0; i < in; ++i) e += double(exact_normed[static_cast<size_t>(row) * in + i]) * __half2float(__float2half(w[static_cast<size_t>(o) * in + i]));
        ASSERT_NEAR(hl[static_cast<size_t>(row) * out + o], e, 3e-2 * (1.0 + std::abs(e))) << rows << " rows, logit " << row << "," << o;
      }
  }
}

TEST_F(CudaKernels, BlasLinearMatchesDefinition) {
  const int rows = 5, in = 96, out = 40;
  const std::vector<float> x = random(static_cast<size_t>(rows) * in, 16), w = random(static_cast<size_t>(out) * in, 17);
  DeviceBuffer<uint8_t> workspace(1 << 20);
  Blas blas(nullptr, workspace.data(), 1 << 20);
  DeviceBuffer<float> dx, dw, dy(static_cast<size_t>(rows) * out);
  dx.upload(x), dw.upload(w);
  blas.linear<float, float>(dx.data(), rows, in, in, dw.data(), out, dy.data(), out);
  const std::vector<float> y = download(dy, static_cast<size_t>(rows) * out);
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out; ++o) {
      double exact = 0;
      for (int i = 0; i < in; ++i) exact += double(x[static_cast<size_t>(r) * in + i]) * w[static_cast<size_t>(o) * in + i];
      ASSERT_NEAR(y[static_cast<size_t>(r) * out + o], exact, 1e-4) << r << "," << o;
    }
}

}  // namespace
}  // namespace auris::cuda
