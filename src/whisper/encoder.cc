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

void Encoder::check(const LogMel& window) const {
  const ModelDims& d = model_.dims;
  const int n_frames = 2 * d.n_audio_ctx;
  if (window.n_mels != d.n_mels || window.n_frames != n_frames)
    throw Error("encoder expects a log-mel window of " + std::to_string(d.n_mels) + " x " + std::to_string(n_frames) +
                ", got " + std::to_string(window.n_mels) + " x " + std::to_string(window.n_frames) +
                (window.n_mels != d.n_mels ? " (this model needs " + std::to_string(d.n_mels) + " mel bins)" : ""));
}

void Encoder::forward(const LogMel& window, std::vector<float>& out) { forward({&window}, {&out}); }

void Encoder::forward(const std::vector<const LogMel*>& windows, const std::vector<std::vector<float>*>& outs) {
  const ModelDims& d = model_.dims;
  const int n_ctx = d.n_audio_ctx;
  const int width = d.n_audio_state;
  const int n_frames = 2 * n_ctx;
  const int n = static_cast<int>(windows.size());
  if (n == 0) return;
  if (outs.size() != windows.size()) throw Error("encoder: one output per window");
  for (const LogMel* w : windows) check(*w);
  const size_t window_values = static_cast<size_t>(n_ctx) * width;

  // conv1: each window's [n_mels x 3000] (channel-major) -> [3000 x d] (time-major), all windows'
  // frames stacked into one product.
  const size_t conv1_columns = static_cast<size_t>(n_frames) * d.n_mels * 3;
  resize_on_huge_pages(columns_, conv1_columns * n);
  for (int i = 0; i < n; ++i)
    im2col_k3(windows[i]->data.data(), d.n_mels, n_frames, n_frames, 1, 1, n_frames, columns_.data() + i * conv1_columns);
  resize_on_huge_pages(conv_out_, static_cast<size_t>(n_frames) * width * n);
  model_.conv1.forward_gelu(columns_.data(), n_frames * n, conv_out_.data());

  // conv2 (stride 2): [3000 x d] -> [1500 x d] per window, again as one product.
  const size_t conv2_columns = static_cast<size_t>(n_ctx) * width * 3;
  resize_on_huge_pages(columns_, conv2_columns * n);
  for (int i = 0; i < n; ++i)
    im2col_k3(conv_out_.data() + static_cast<size_t>(i) * n_frames * width, width, n_frames, 1, width, 2, n_ctx,
              columns_.data() + i * conv2_columns);
  resize_on_huge_pages(stacked_, window_values * n);
  model_.conv2.forward_gelu(columns_.data(), n_ctx * n, stacked_.data());
  for (int i = 0; i < n; ++i)
    add_inplace(stacked_.data() + i * window_values, model_.audio_positions.data(), static_cast<long>(window_values));

  for (const EncoderBlock& blk : model_.encoder_blocks) block(blk, stacked_.data(), n);
  for (int i = 0; i < n; ++i) {
    std::vector<float>& out = *outs[i];
    out.resize(window_values);
    layer_norm(stacked_.data() + i * window_values, n_ctx, width, model_.encoder_ln_post.gamma.data(),
               model_.encoder_ln_post.beta.data(), out.data());
  }
}

void Encoder::block(const EncoderBlock& blk, float* x, int n_windows) {
  const int n_ctx = model_.dims.n_audio_ctx;
  const int width = model_.dims.n_audio_state;
  const int rows = n_ctx * n_windows;
  const long size = static_cast<long>(rows) * width;
  resize_on_huge_pages(normed_, size);
  resize_on_huge_pages(qkv_, size * 3);
  resize_on_huge_pages(attended_, size);
  resize_on_huge_pages(hidden_, size * 4);

  layer_norm(x, rows, width, blk.attn_ln.gamma.data(), blk.attn_ln.beta.data(), normed_.data());
  blk.qkv.forward(normed_.data(), rows, qkv_.data());
  const int d_head = width / model_.dims.n_audio_head;
  for (int i = 0; i < n_windows; ++i) {
    const float* qkv = qkv_.data() + static_cast<size_t>(i) * n_ctx * 3 * width;
    attention({qkv, 3 * width, n_ctx, qkv + width, 3 * width, qkv + 2 * width, 3 * width, n_ctx, model_.dims.n_audio_head,
               d_head},
              attended_.data() + static_cast<size_t>(i) * n_ctx * width, width, scratch_);
  }
  blk.attn_out.forward(attended_.data(), rows, normed_.data());
  add_inplace(x, normed_.data(), size);

  layer_norm(x, rows, width, blk.mlp_ln.gamma.data(), blk.mlp_ln.beta.data(), normed_.data());
  blk.mlp_in.forward_gelu(normed_.data(), rows, hidden_.data());
  blk.mlp_out.forward(hidden_.data(), rows, normed_.data());
  add_inplace(x, normed_.data(), size);
}

}  // namespace auris
