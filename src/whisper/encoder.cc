#include "whisper/encoder.h"

#include <string>

#include "auris/error.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/norm_activation.h"
#include "util/huge_pages.h"

namespace auris {
namespace {

// Lays out kernel-3, padding-1 convolution inputs as GEMM rows: columns[t][c*3 + k] =
// input(c, t*stride - 1 + k), zero outside. input(c, t) = in[c * c_stride + t * t_stride].
void im2col_k3(const float* in, int channels, int in_len, long c_stride, long t_stride, int stride, int out_len,
               float* columns) {
  for (int t = 0; t < out_len; ++t) {
    float* row = columns + static_cast<long>(t) * channels * 3;
    for (int k = 0; k < 3; ++k) {
      const int src = t * stride - 1 + k;
      const bool inside = src >= 0 && src < in_len;
      for (int c = 0; c < channels; ++c) row[c * 3 + k] = inside ? in[c * c_stride + src * t_stride] : 0.0f;
    }
  }
}

}  // namespace

void Encoder::forward(const LogMel& window, std::vector<float>& out) {
  const ModelDims& d = model_.dims;
  const int n_ctx = d.n_audio_ctx;
  const int width = d.n_audio_state;
  const int n_frames = 2 * n_ctx;
  if (window.n_mels != d.n_mels || window.n_frames != n_frames)
    throw Error("encoder expects a log-mel window of " + std::to_string(d.n_mels) + " x " + std::to_string(n_frames) +
                ", got " + std::to_string(window.n_mels) + " x " + std::to_string(window.n_frames) +
                (window.n_mels != d.n_mels ? " (this model needs " + std::to_string(d.n_mels) + " mel bins)" : ""));

  // conv1: [n_mels x 3000] (channel-major) -> [3000 x d] (time-major)
  resize_on_huge_pages(columns_, static_cast<size_t>(n_frames) * d.n_mels * 3);
  im2col_k3(window.data.data(), d.n_mels, n_frames, n_frames, 1, 1, n_frames, columns_.data());
  resize_on_huge_pages(conv_out_, static_cast<size_t>(n_frames) * width);
  model_.conv1.forward_gelu(columns_.data(), n_frames, conv_out_.data());

  // conv2 (stride 2): [3000 x d] -> [1500 x d]
  resize_on_huge_pages(columns_, static_cast<size_t>(n_ctx) * width * 3);
  im2col_k3(conv_out_.data(), width, n_frames, 1, width, 2, n_ctx, columns_.data());
  out.resize(static_cast<size_t>(n_ctx) * width);
  model_.conv2.forward_gelu(columns_.data(), n_ctx, out.data());
  add_inplace(out.data(), model_.audio_positions.data(), static_cast<long>(out.size()));

  for (const EncoderBlock& blk : model_.encoder_blocks) block(blk, out.data());
  layer_norm(out.data(), n_ctx, width, model_.encoder_ln_post.gamma.data(), model_.encoder_ln_post.beta.data(),
             out.data());
}

void Encoder::block(const EncoderBlock& blk, float* x) {
  const int n_ctx = model_.dims.n_audio_ctx;
  const int width = model_.dims.n_audio_state;
  const long size = static_cast<long>(n_ctx) * width;
  resize_on_huge_pages(normed_, size);
  resize_on_huge_pages(qkv_, size * 3);
  resize_on_huge_pages(attended_, size);
  resize_on_huge_pages(hidden_, size * 4);

  layer_norm(x, n_ctx, width, blk.attn_ln.gamma.data(), blk.attn_ln.beta.data(), normed_.data());
  blk.qkv.forward(normed_.data(), n_ctx, qkv_.data());
  const int d_head = width / model_.dims.n_audio_head;
  attention({qkv_.data(), 3 * width, n_ctx, qkv_.data() + width, 3 * width, qkv_.data() + 2 * width, 3 * width, n_ctx,
             model_.dims.n_audio_head, d_head},
            attended_.data(), width, scratch_);
  blk.attn_out.forward(attended_.data(), n_ctx, normed_.data());
  add_inplace(x, normed_.data(), size);

  layer_norm(x, n_ctx, width, blk.mlp_ln.gamma.data(), blk.mlp_ln.beta.data(), normed_.data());
  blk.mlp_in.forward_gelu(normed_.data(), n_ctx, hidden_.data());
  blk.mlp_out.forward(hidden_.data(), n_ctx, normed_.data());
  add_inplace(x, normed_.data(), size);
}

}  // namespace auris
