#include "whisper/encoder.h"

#include <string>

#include "auris/error.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/norm_activation.h"
#include "util/huge_pages.h"
#include "whisper/layer_sequence.h"

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

// The ops of layer_sequence.h over the stacked windows: every product multiplies the rows of all of
// them at once (Linear adds the bias); each window attends over its own frames.
struct Encoder::BlockOps {
  Encoder& e;
  int n_windows;

  int n_ctx() const { return e.model_.dims.n_audio_ctx; }
  int width() const { return e.model_.dims.n_audio_state; }
  int rows() const { return n_ctx() * n_windows; }
  float* buffer(LayerBuffer b) const {
    switch (b) {
      case LayerBuffer::kNormed: return e.normed_.data();
      case LayerBuffer::kQkv: return e.qkv_.data();
      case LayerBuffer::kAttended: return e.attended_.data();
      // A block's projections back to the width write where the layer norm that follows them
      // writes: add_and_norm reads them first, and no block projects from normed into here.
      case LayerBuffer::kProjected: return e.normed_.data();
      case LayerBuffer::kHidden: return e.hidden_.data();
    }
    return nullptr;
  }
  void norm(const LayerNormWeights& ln) {
    layer_norm(e.stacked_.data(), rows(), width(), ln.gamma.data(), ln.beta.data(), e.normed_.data());
  }
  void project(LayerBuffer from, const Linear& l, LayerBuffer to) { l.forward(buffer(from), rows(), buffer(to)); }
  void project_gelu(LayerBuffer from, const Linear& l, LayerBuffer to) { l.forward_gelu(buffer(from), rows(), buffer(to)); }
  void self_attention(int, const Linear&) {
    const int w = width(), ctx = n_ctx();
    const int d_head = w / e.model_.dims.n_audio_head;
    for (int i = 0; i < n_windows; ++i) {
      const float* qkv = e.qkv_.data() + static_cast<size_t>(i) * ctx * 3 * w;
      AttentionInput in{qkv, 3 * w, ctx, qkv + w, 3 * w, qkv + 2 * w, 3 * w, ctx, e.model_.dims.n_audio_head, d_head};
      in.bf16_products = e.model_.compute_type == ComputeType::kBfloat16 || e.model_.compute_type == ComputeType::kInt8Bfloat16;
      attention(in, e.attended_.data() + static_cast<size_t>(i) * ctx * w, w, e.scratch_);
    }
  }
  void add_and_norm(const Linear&, const LayerNormWeights& ln) {
    add_inplace(e.stacked_.data(), e.normed_.data(), static_cast<long>(rows()) * width());
    norm(ln);
  }
};

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

  const long size = static_cast<long>(window_values) * n;
  resize_on_huge_pages(normed_, size);
  resize_on_huge_pages(qkv_, size * 3);
  resize_on_huge_pages(attended_, size);
  resize_on_huge_pages(hidden_, size * 4);
  BlockOps ops{*this, n};
  encoder_blocks(ops, model_.encoder_blocks, model_.encoder_ln_post);
  for (int i = 0; i < n; ++i)
    outs[i]->assign(normed_.begin() + static_cast<long>(i * window_values), normed_.begin() + static_cast<long>((i + 1) * window_values));
}

}  // namespace auris
