#include "kernels/cpu/attention.h"

#include <cblas.h>

#include <cmath>

#include "kernels/cpu/norm_activation.h"

namespace auris {

void attention(const AttentionInput& in, float* out, int ldo, std::vector<float>& scratch) {
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
