#include "kernels/cpu/attention.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "kernels/cpu/dot_product.h"
#include "kernels/cpu/norm_activation.h"

namespace auris {

namespace {


// Few queries (a decode step): dot products and weighted sums straight over the keys. BLAS would
// first pack the whole K and V panels, which costs more than the arithmetic itself.
void attention_few_queries(const AttentionInput& in, float* out, int ldo, std::vector<float>& scratch) {
  const size_t score_size = static_cast<size_t>(in.n_q) * in.n_kv;
  if (scratch.size() < score_size) scratch.resize(score_size);
  const float scale = 1.0f / std::sqrt(static_cast<float>(in.d_head));
  const int d = in.d_head;
  auto visible_keys = [&](int i) {
    return in.causal_offset >= 0 ? std::min(in.n_kv, i + in.causal_offset + 1) : in.n_kv;
  };
  for (int h = 0; h < in.n_head; ++h) {
    // Keys and values are the large operands: each is read once per head and used by every query.
    for (int j = 0; j < in.n_kv; ++j) {
      const float* k = in.k + static_cast<size_t>(j) * in.ldk + h * d;
      for (int i = 0; i < in.n_q; ++i)
        scratch[static_cast<size_t>(i) * in.n_kv + j] = dot_product(in.q + static_cast<size_t>(i) * in.ldq + h * d, k, d) * scale;
    }
    for (int i = 0; i < in.n_q; ++i) {
      float* p = scratch.data() + static_cast<size_t>(i) * in.n_kv;
      const int visible = visible_keys(i);
      for (int j = visible; j < in.n_kv; ++j) p[j] = 0.0f;
      softmax_inplace(p, visible);
      float* o = out + static_cast<size_t>(i) * ldo + h * d;
      for (int c = 0; c < d; ++c) o[c] = 0.0f;
    }
    for (int j = 0; j < in.n_kv; ++j) {
      const float* v = in.v + static_cast<size_t>(j) * in.ldv + h * d;
      for (int i = 0; i < in.n_q; ++i) {
        const float w = scratch[static_cast<size_t>(i) * in.n_kv + j];
        float* o = out + static_cast<size_t>(i) * ldo + h * d;
        for (int c = 0; c < d; ++c) o[c] += w * v[c];
      }
    }
  }
}

}  // namespace

void attention(const AttentionInput& in, float* out, int ldo, std::vector<float>& scratch) {
  if (in.n_q <= 8) return attention_few_queries(in, out, ldo, scratch);
  const size_t score_size = static_cast<size_t>(in.n_q) * in.n_kv;
  if (scratch.size() < score_size) scratch.resize(score_size);
  float* scores = scratch.data();
  const float scale = 1.0f / std::sqrt(static_cast<float>(in.d_head));
  for (int h = 0; h < in.n_head; ++h) {
    const int off = h * in.d_head;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, in.n_q, in.n_kv, in.d_head, scale, in.q + off, in.ldq,
                in.k + off, in.ldk, 0.0f, scores, in.n_kv);
    for (int i = 0; i < in.n_q; ++i) {
      float* row = scores + static_cast<size_t>(i) * in.n_kv;
      int visible = in.n_kv;
      if (in.causal_offset >= 0) {
        visible = std::min(in.n_kv, i + in.causal_offset + 1);
        for (int j = visible; j < in.n_kv; ++j) row[j] = 0.0f;
      }
      softmax_inplace(row, visible);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, in.n_q, in.d_head, in.n_kv, 1.0f, scores, in.n_kv,
                in.v + off, in.ldv, 0.0f, out + off, ldo);
  }
}

}  // namespace auris
