// The CUDA engine for one window: the encoder on cuBLAS, the window's cross-attention K/V computed
// once and kept head-major on the device, a prefill, and decode steps captured as one CUDA graph per
// batch-size bucket and replayed: between steps the host writes only the new tokens and the cache
// length (both read by the graph's kernels from fixed device addresses) and reads back the logits.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <type_traits>

#include "auris/error.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/kernels.h"
#include "whisper/cuda/cuda_weights.h"
#include "whisper/cuda/cuda_window_engine.h"
#include "whisper/inference_calls.h"

namespace auris {

namespace {

using cuda::DecodeAttentionShape;
using cuda::DeviceBuffer;

constexpr int kHead = 64;
constexpr int kMaxBucket = 32;  // rows one captured step takes at most (beams x best-of)
constexpr size_t kBlasWorkspaceBytes = 32u << 20;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int bucket_of(int rows) {
  int b = 1;
  while (b < rows) b *= 2;
  return b;
}

// Pinned host memory, so copies to and from it can sit inside a captured graph.
template <typename X>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(size_t n) { AURIS_CUDA_CHECK(cudaMallocHost(&data_, n * sizeof(X))); }
  ~PinnedBuffer() { cudaFreeHost(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  X* data() { return data_; }

 private:
  X* data_ = nullptr;
};

class Graph {
 public:
  Graph() = default;
  ~Graph() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  void begin(cudaStream_t s) { AURIS_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal)); }
  void end(cudaStream_t s) {
    AURIS_CUDA_CHECK(cudaStreamEndCapture(s, &graph_));
    AURIS_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  void launch(cudaStream_t s) const { AURIS_CUDA_CHECK(cudaGraphLaunch(exec_, s)); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// The step's inputs at fixed device addresses: tokens, positions, cache rows, and the cache length.
struct StepInputs {
  int tokens[kMaxBucket];
  int positions[kMaxBucket];
  int rows[kMaxBucket];
  int n_kv;       // keys a step reads: the filled prefix, this step's position included
  int n_visible;  // keys that count (n_kv, but the full-cache ablation reads all 448 and masks)
  int n_ctx;      // the window's 1500 cross-attention keys
};

template <typename T>
class CudaWindowEngine final : public WindowEngine {
 public:
  explicit CudaWindowEngine(std::shared_ptr<const CudaWeights> weights)
      : holder_(std::move(weights)),
        w_(static_cast<const cuda::WeightsOf<T>&>(*holder_)),
        d_(w_.dims),
        workspace_(kBlasWorkspaceBytes),
        blas_(stream_.get(), workspace_.data(), kBlasWorkspaceBytes),
        host_inputs_(1),
        host_logits_(static_cast<size_t>(kMaxBucket) * d_.n_vocab) {
    const size_t ctx = d_.n_audio_ctx, aw = d_.n_audio_state, tw = d_.n_text_state, text_ctx = d_.n_text_ctx;
    const size_t frames = 2 * ctx, rows = std::max(frames, text_ctx);
    // Encoder workspaces (the decoder's share them: a window's decode follows its encoding).
    mel_.resize(static_cast<size_t>(d_.n_mels) * frames);
    columns_.resize(std::max(frames * d_.n_mels * 3, ctx * aw * 3));
    x_.resize(std::max(frames, text_ctx) * std::max(aw, tw));
    x_float_.resize(frames * aw);
    normed_.resize(rows * std::max(aw, tw));
    qkv_.resize(rows * 3 * std::max(aw, tw));
    attended_.resize(rows * std::max(aw, tw));
    projected_.resize(rows * std::max(aw, tw));
    hidden_.resize(rows * 4 * std::max(aw, tw));
    const size_t heads = std::max(d_.n_audio_head, d_.n_text_head);
    scores_.resize(heads * std::max(ctx * ctx, text_ctx * ctx));
    probabilities_.resize(scores_.size());
    encoder_out_.resize(ctx * aw);
    const size_t kv_width = static_cast<size_t>(w_.cross_kv_all_layers.out);
    kv_projected_.resize(ctx * kv_width);
    cross_.resize(ctx * kv_width);
    inputs_.resize(1);
    logits_.resize(static_cast<size_t>(std::max<int>(kMaxBucket, 2)) * d_.n_vocab);
    partial_.resize(std::max(
        cuda::decode_attention_scratch({kMaxBucket, d_.n_text_head, d_.n_text_ctx, false}),
        cuda::decode_attention_scratch({kMaxBucket, d_.n_text_head, d_.n_audio_ctx, true})));
    tickets_.resize(cuda::decode_attention_tickets({kMaxBucket, d_.n_text_head, d_.n_audio_ctx, true}));
    AURIS_CUDA_CHECK(cudaMemsetAsync(tickets_.data(), 0, tickets_.size() * sizeof(int), stream()));
  }

  void set_window(const LogMel& window) override;
  void alignment_pass(const std::vector<int>&, const std::vector<int>&, const std::vector<std::pair<int, int>>&,
                      std::vector<float>&, std::vector<float>&) override {
    throw Error("word timestamps are not implemented on --device cuda yet: use --device cpu for them");
  }
  EngineCounters counters() const override { return counters_; }
  void set_ablations(const EngineAblations& ablations) override {
    ablations_ = ablations;
    graphs_.clear();  // the full-cache ablation changes what a step reads
  }

  void logits(const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out, int extra_position = -1,
              std::vector<float>* extra_logits_out = nullptr) override;
  void rearrange_kv_cache(const std::vector<int>& source_rows) override;
  void reset() override { length_ = 0; }
  int n_vocab() const override { return d_.n_vocab; }

 private:
  cudaStream_t stream() const { return stream_.get(); }
  size_t self_cache_layer_size() const { return static_cast<size_t>(max_rows_) * d_.n_text_ctx * d_.n_text_state; }
  T* self_keys(int layer) { return self_k_.data() + layer * self_cache_layer_size(); }
  T* self_values(int layer) { return self_v_.data() + layer * self_cache_layer_size(); }
  const T* cross_keys(int layer) const {
    return cross_.data() + static_cast<size_t>(layer) * 2 * d_.n_audio_ctx * d_.n_text_state;
  }
  const T* cross_values(int layer) const {
    return cross_keys(layer) + static_cast<size_t>(d_.n_audio_ctx) * d_.n_text_state;
  }

  // One encoder block: x_ enters with normed_ holding its attention layer norm and leaves with `next`
  // (the next block's attention layer norm, or ln_post) of its output written to next_out.
  void encoder_block(const cuda::DeviceEncoderBlock<T>& b, const cuda::DeviceLayerNorm& next, T* next_out);
  void compute_cross_kv();
  void ensure_rows(int rows);
  void prefill(const std::vector<int>& tokens, const std::vector<int>& positions, std::vector<float>& logits);
  void step(const std::vector<int>& tokens, std::vector<float>& logits);
  void run_step_layers(int rows);
  void decoder_layer_prefill(int layer, int n);
  void copy_rows(const std::vector<int>& source_rows);

  // y = x W^T: a decode step's few rows through the own gemv kernel, more through cuBLAS.
  template <typename B>
  void linear(const T* x, int rows, const cuda::DeviceLinear<T>& l, B* y) const {
    if constexpr (std::is_same_v<B, T>) {
      if (rows <= cuda::kGemvMaxRows)
        return cuda::gemv<T>(x, rows, l.in, l.in, l.weight.data(), l.out, nullptr, false, y, l.out, stream());
    }
    blas_.linear<T, B>(x, rows, l.in, l.in, l.weight.data(), l.out, y, l.out);
  }
  // y = GELU(x W^T + b), the bias and GELU in the gemv kernel where it runs.
  void linear_gelu(const T* x, int rows, const cuda::DeviceLinear<T>& l, T* y) const {
    if (rows <= cuda::kGemvMaxRows)
      return cuda::gemv<T>(x, rows, l.in, l.in, l.weight.data(), l.out, l.bias_or_null(), true, y, l.out, stream());
    blas_.linear<T, T>(x, rows, l.in, l.in, l.weight.data(), l.out, y, l.out);
    cuda::bias_gelu<T>(y, l.bias_or_null(), rows, l.out, l.out, stream());
  }

  std::shared_ptr<const CudaWeights> holder_;
  const cuda::WeightsOf<T>& w_;
  const ModelDims& d_;
  cuda::Stream stream_;
  DeviceBuffer<uint8_t> workspace_;
  cuda::Blas blas_;

  DeviceBuffer<float> mel_, x_, x_float_, scores_, logits_, partial_;
  DeviceBuffer<T> columns_, normed_, qkv_, attended_, projected_, hidden_, probabilities_, encoder_out_, kv_projected_,
      cross_;
  DeviceBuffer<T> self_k_, self_v_, reorder_scratch_;
  DeviceBuffer<StepInputs> inputs_;
  DeviceBuffer<int> source_rows_, tickets_;
  PinnedBuffer<StepInputs> host_inputs_;
  PinnedBuffer<float> host_logits_;
  std::map<int, std::unique_ptr<Graph>> graphs_;  // by bucket

  int max_rows_ = 0;  // rows the self-attention cache holds
  int length_ = 0;    // filled positions
  bool has_window_ = false;
  EngineAblations ablations_;
  EngineCounters counters_;
};

template <typename T>
void CudaWindowEngine<T>::set_window(const LogMel& window) {
  const int ctx = d_.n_audio_ctx, width = d_.n_audio_state, frames = 2 * ctx, mels = d_.n_mels;
  if (window.n_mels != mels || window.n_frames != frames)
    throw Error("encoder expects a log-mel window of " + std::to_string(mels) + " x " + std::to_string(frames) +
                ", got " + std::to_string(window.n_mels) + " x " + std::to_string(window.n_frames));
  const auto start = std::chrono::steady_clock::now();
  cudaStream_t s = stream();
  mel_.upload(window.data, s);
  // conv1 over [n_mels x 3000] (channel-major), conv2 (stride 2) over conv1's [3000 x d] output.
  cuda::im2col_k3<T>(mel_.data(), mels, frames, frames, 1, 1, frames, columns_.data(), s);
  linear_gelu(columns_.data(), frames, w_.conv1, projected_.data());
  cuda::convert<T, float>(projected_.data(), nullptr, static_cast<long>(frames) * width, x_float_.data(), s);
  cuda::im2col_k3<T>(x_float_.data(), width, frames, 1, width, 2, ctx, columns_.data(), s);
  linear_gelu(columns_.data(), ctx, w_.conv2, projected_.data());
  cuda::convert<T, float>(projected_.data(), w_.audio_positions.data(), static_cast<long>(ctx) * width, x_.data(), s);
  const auto& blocks = w_.encoder_blocks;
  cuda::layer_norm<T>(x_.data(), ctx, width, blocks[0].attn_ln.gamma.data(), blocks[0].attn_ln.beta.data(),
                      normed_.data(), s);
  for (size_t i = 0; i < blocks.size(); ++i) {
    const bool last = i + 1 == blocks.size();
    encoder_block(blocks[i], last ? w_.encoder_ln_post : blocks[i + 1].attn_ln, last ? encoder_out_.data() : normed_.data());
  }
  stream_.synchronize();
  counters_.encoder_seconds += seconds_since(start);
  ++counters_.encoder_windows;
  compute_cross_kv();
  has_window_ = true;
  reset();
}

template <typename T>
void CudaWindowEngine<T>::encoder_block(const cuda::DeviceEncoderBlock<T>& b, const cuda::DeviceLayerNorm& next,
                                        T* next_out) {
  const int ctx = d_.n_audio_ctx, width = d_.n_audio_state, heads = d_.n_audio_head;
  cudaStream_t s = stream();
  linear(normed_.data(), ctx, b.qkv, qkv_.data());
  cuda::add_bias<T>(qkv_.data(), b.qkv.bias_or_null(), ctx, 3 * width, 3 * width, s);
  const T* qkv = qkv_.data();
  blas_.head_scores<T>({qkv, 3 * width, kHead}, {qkv + width, 3 * width, kHead}, ctx, ctx, kHead, heads, scores_.data());
  cuda::softmax_rows<T>(scores_.data(), heads * ctx, ctx, 0.125f, probabilities_.data(), s);
  blas_.head_values<T>(probabilities_.data(), {qkv + 2 * width, 3 * width, kHead}, ctx, ctx, kHead, heads,
                       attended_.data(), width);
  linear(attended_.data(), ctx, b.attn_out, projected_.data());
  cuda::residual_layer_norm<T>(x_.data(), projected_.data(), b.attn_out.bias_or_null(), ctx, width, b.mlp_ln.gamma.data(),
                               b.mlp_ln.beta.data(), normed_.data(), s);
  linear_gelu(normed_.data(), ctx, b.mlp_in, hidden_.data());
  linear(hidden_.data(), ctx, b.mlp_out, projected_.data());
  cuda::residual_layer_norm<T>(x_.data(), projected_.data(), b.mlp_out.bias_or_null(), ctx, width, next.gamma.data(),
                               next.beta.data(), next_out, s);
}

// One projection of the encoder output for every decoder layer's K and V, regrouped head-major.
template <typename T>
void CudaWindowEngine<T>::compute_cross_kv() {
  const auto start = std::chrono::steady_clock::now();
  const int ctx = d_.n_audio_ctx, kv_width = w_.cross_kv_all_layers.out;
  linear(encoder_out_.data(), ctx, w_.cross_kv_all_layers, kv_projected_.data());
  cuda::add_bias<T>(kv_projected_.data(), w_.cross_kv_all_layers.bias_or_null(), ctx, kv_width, kv_width, stream());
  cuda::regroup_heads<T>(kv_projected_.data(), ctx, kv_width / kHead, cross_.data(), stream());
  stream_.synchronize();
  counters_.cross_kv_rows += ctx;
  counters_.cross_kv_seconds += seconds_since(start);
}

template <typename T>
void CudaWindowEngine<T>::ensure_rows(int rows) {
  if (rows > kMaxBucket)
    throw Error("--device cuda decodes at most " + std::to_string(kMaxBucket) + " sequences at once (beam size x best of)");
  const int needed = bucket_of(rows);
  if (needed <= max_rows_) return;
  max_rows_ = needed;
  const size_t size = static_cast<size_t>(d_.n_text_layer) * self_cache_layer_size();
  self_k_ = DeviceBuffer<T>(size);
  self_v_ = DeviceBuffer<T>(size);
  reorder_scratch_ = DeviceBuffer<T>(self_cache_layer_size());
  AURIS_CUDA_CHECK(cudaMemsetAsync(self_k_.data(), 0, size * sizeof(T), stream()));
  AURIS_CUDA_CHECK(cudaMemsetAsync(self_v_.data(), 0, size * sizeof(T), stream()));
  source_rows_.resize(kMaxBucket);
  graphs_.clear();  // they point at the old cache
}

template <typename T>
void CudaWindowEngine<T>::logits(const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out,
                                 int extra_position, std::vector<float>* extra_logits_out) {
  if (!has_window_) throw Error("decoder has no audio window: call set_window() first");
  if (length_ == 0) {
    const PrefillCall call = prefill_call(tokens, extra_position, extra_logits_out);
    ensure_rows(call.rows);
    std::vector<float> prefill_logits;
    prefill(call.prompt, call.logit_positions, prefill_logits);
    copy_rows(std::vector<int>(call.rows, 0));  // every row continues from the one prefilled prompt
    replicate_prefill_logits(call, prefill_logits, d_.n_vocab, logits_out, extra_logits_out);
    return;
  }
  if (static_cast<int>(tokens.size()) > max_rows_) throw Error("more sequences than were prefilled");
  step(step_tokens(tokens, length_), logits_out);
}

template <typename T>
void CudaWindowEngine<T>::prefill(const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                                  std::vector<float>& logits) {
  const int n = static_cast<int>(tokens.size()), tw = d_.n_text_state;
  if (n > d_.n_text_ctx) throw Error("decoder context is full: Whisper decodes at most " + std::to_string(d_.n_text_ctx) + " tokens");
  for (int t : tokens)
    if (t < 0 || t >= d_.n_vocab) throw Error("token id " + std::to_string(t) + " is outside the vocabulary");
  const auto start = std::chrono::steady_clock::now();
  cudaStream_t s = stream();
  // The prompt's tokens and positions 0..n-1, all in cache row 0.
  std::vector<int> staged(3 * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) staged[i] = tokens[i], staged[n + i] = i, staged[2 * n + i] = 0;
  DeviceBuffer<int> prompt(staged.size());
  prompt.upload(staged, s);
  cuda::embed<T>(prompt.data(), prompt.data() + n, n, w_.token_embedding.weight.data(), w_.text_positions.data(), tw,
                 x_.data(), s);
  for (int l = 0; l < d_.n_text_layer; ++l) {
    const auto& b = w_.decoder_blocks[l];
    cuda::layer_norm<T>(x_.data(), n, tw, b.attn_ln.gamma.data(), b.attn_ln.beta.data(), normed_.data(), s);
    linear(normed_.data(), n, b.qkv, qkv_.data());
    cuda::add_bias<T>(qkv_.data(), b.qkv.bias_or_null(), n, 3 * tw, 3 * tw, s);
    cuda::append_kv<T>(qkv_.data(), n, 3 * tw, tw, nullptr, prompt.data() + 2 * n, prompt.data() + n, self_keys(l),
                       self_values(l), d_.n_text_ctx, s);
    decoder_layer_prefill(l, n);
  }
  const int k = static_cast<int>(logit_positions.size());
  for (int i = 0; i < k; ++i)
    cuda::layer_norm<T>(x_.data() + static_cast<size_t>(logit_positions[i]) * tw, 1, tw, w_.decoder_ln.gamma.data(),
                        w_.decoder_ln.beta.data(), normed_.data() + static_cast<size_t>(i) * tw, s);
  linear(normed_.data(), k, w_.token_embedding, logits_.data());
  logits.resize(static_cast<size_t>(k) * d_.n_vocab);
  logits_.download(logits.data(), logits.size(), s);
  stream_.synchronize();
  length_ = n;
  counters_.self_qkv_rows += static_cast<long long>(n) * d_.n_text_layer;
  counters_.cross_query_rows += static_cast<long long>(n) * d_.n_text_layer;
  ++counters_.prefills;
  counters_.prefill_seconds += seconds_since(start);
}

// A prefill's attention: the prompt's queries over cache row 0 (causal), then over the window.
template <typename T>
void CudaWindowEngine<T>::decoder_layer_prefill(int l, int n) {
  const auto& b = w_.decoder_blocks[l];
  const int tw = d_.n_text_state, heads = d_.n_text_head, ctx = d_.n_audio_ctx;
  cudaStream_t s = stream();
  const T* qkv = qkv_.data();
  blas_.head_scores<T>({qkv, 3 * tw, kHead}, {self_keys(l), tw, kHead}, n, n, kHead, heads, scores_.data());
  cuda::softmax_rows<T>(scores_.data(), heads * n, n, 0.125f, probabilities_.data(), s, n, 0);
  blas_.head_values<T>(probabilities_.data(), {self_values(l), tw, kHead}, n, n, kHead, heads, attended_.data(), tw);
  linear(attended_.data(), n, b.attn_out, projected_.data());
  cuda::residual_layer_norm<T>(x_.data(), projected_.data(), b.attn_out.bias_or_null(), n, tw, b.cross_ln.gamma.data(),
                               b.cross_ln.beta.data(), normed_.data(), s);
  linear(normed_.data(), n, b.cross_query, projected_.data());
  cuda::add_bias<T>(projected_.data(), b.cross_query.bias_or_null(), n, tw, tw, s);
  const long long head_stride = static_cast<long long>(ctx) * kHead;
  blas_.head_scores<T>({projected_.data(), tw, kHead}, {cross_keys(l), kHead, head_stride}, n, ctx, kHead, heads,
                       scores_.data());
  cuda::softmax_rows<T>(scores_.data(), heads * n, ctx, 0.125f, probabilities_.data(), s);
  blas_.head_values<T>(probabilities_.data(), {cross_values(l), kHead, head_stride}, n, ctx, kHead, heads,
                       attended_.data(), tw);
  linear(attended_.data(), n, b.cross_out, projected_.data());
  cuda::residual_layer_norm<T>(x_.data(), projected_.data(), b.cross_out.bias_or_null(), n, tw, b.mlp_ln.gamma.data(),
                               b.mlp_ln.beta.data(), normed_.data(), s);
  linear_gelu(normed_.data(), n, b.mlp_in, hidden_.data());
  linear(hidden_.data(), n, b.mlp_out, projected_.data());
  cuda::add_to_residual<T>(x_.data(), projected_.data(), b.mlp_out.bias_or_null(), n, tw, s);
}

// Every layer of a decode step for `rows` rows (a bucket), reading its inputs from inputs_: the
// body of the captured graph. Static shapes: nothing here depends on the cache's length.
template <typename T>
void CudaWindowEngine<T>::run_step_layers(int rows) {
  const int tw = d_.n_text_state, heads = d_.n_text_head;
  cudaStream_t s = stream();
  const StepInputs* in = inputs_.data();
  cuda::embed<T>(in->tokens, in->positions, rows, w_.token_embedding.weight.data(), w_.text_positions.data(), tw,
                 x_.data(), s);
  const auto& blocks = w_.decoder_blocks;
  cuda::layer_norm<T>(x_.data(), rows, tw, blocks[0].attn_ln.gamma.data(), blocks[0].attn_ln.beta.data(), normed_.data(), s);
  // Each sublayer's residual add and the next sublayer's layer norm are one kernel; the projections'
  // Q, K and V biases are added where the attention and the cache write read them.
  for (int l = 0; l < d_.n_text_layer; ++l) {
    const auto& b = blocks[l];
    linear(normed_.data(), rows, b.qkv, qkv_.data());
    cuda::append_kv<T>(qkv_.data(), rows, 3 * tw, tw, b.qkv.bias_or_null(), in->rows, in->positions, self_keys(l),
                       self_values(l), d_.n_text_ctx, s);
    cuda::decode_attention<T>(qkv_.data(), 3 * tw, b.qkv.bias_or_null(), self_keys(l), self_values(l), &in->n_kv,
                              &in->n_visible, {rows, heads, d_.n_text_ctx, false}, partial_.data(), tickets_.data(), attended_.data(), tw,
                              s);
    linear(attended_.data(), rows, b.attn_out, projected_.data());
    cuda::residual_layer_norm<T>(x_.data(), projected_.data(), b.attn_out.bias_or_null(), rows, tw, b.cross_ln.gamma.data(),
                                 b.cross_ln.beta.data(), normed_.data(), s);

    // Cross-attention: Q only, over the window's cache.
    linear(normed_.data(), rows, b.cross_query, projected_.data());
    cuda::decode_attention<T>(projected_.data(), tw, b.cross_query.bias_or_null(), cross_keys(l), cross_values(l),
                              &in->n_ctx, &in->n_ctx, {rows, heads, d_.n_audio_ctx, true}, partial_.data(),
                              tickets_.data(), attended_.data(), tw, s);
    linear(attended_.data(), rows, b.cross_out, projected_.data());
    cuda::residual_layer_norm<T>(x_.data(), projected_.data(), b.cross_out.bias_or_null(), rows, tw, b.mlp_ln.gamma.data(),
                                 b.mlp_ln.beta.data(), normed_.data(), s);

    linear_gelu(normed_.data(), rows, b.mlp_in, hidden_.data());
    linear(hidden_.data(), rows, b.mlp_out, projected_.data());
    const cuda::DeviceLayerNorm& next = l + 1 < d_.n_text_layer ? blocks[l + 1].attn_ln : w_.decoder_ln;
    cuda::residual_layer_norm<T>(x_.data(), projected_.data(), b.mlp_out.bias_or_null(), rows, tw, next.gamma.data(),
                                 next.beta.data(), normed_.data(), s);
  }
  linear(normed_.data(), rows, w_.token_embedding, logits_.data());
  AURIS_CUDA_CHECK(cudaMemcpyAsync(host_logits_.data(), logits_.data(), static_cast<size_t>(rows) * d_.n_vocab * sizeof(float),
                                   cudaMemcpyDeviceToHost, s));
}

template <typename T>
void CudaWindowEngine<T>::step(const std::vector<int>& tokens, std::vector<float>& logits) {
  const int rows = static_cast<int>(tokens.size());
  const int bucket = bucket_of(rows);
  if (length_ >= d_.n_text_ctx)
    throw Error("decoder context is full: Whisper decodes at most " + std::to_string(d_.n_text_ctx) + " tokens");
  for (int t : tokens)
    if (t < 0 || t >= d_.n_vocab) throw Error("token id " + std::to_string(t) + " is outside the vocabulary");
  const auto start = std::chrono::steady_clock::now();
  if (ablations_.recompute_cross_kv_each_step) compute_cross_kv();
  // Padding rows repeat row 0's token into their own (unread) cache rows.
  StepInputs& in = *host_inputs_.data();
  for (int r = 0; r < bucket; ++r) {
    in.tokens[r] = tokens[r < rows ? r : 0];
    in.positions[r] = length_;
    in.rows[r] = r;
  }
  in.n_kv = ablations_.attend_full_self_cache ? d_.n_text_ctx : length_ + 1;
  in.n_visible = length_ + 1;
  in.n_ctx = d_.n_audio_ctx;
  AURIS_CUDA_CHECK(cudaMemcpyAsync(inputs_.data(), &in, sizeof(StepInputs), cudaMemcpyHostToDevice, stream()));
  std::unique_ptr<Graph>& graph = graphs_[bucket];
  if (!graph) {
    graph = std::make_unique<Graph>();
    graph->begin(stream());
    run_step_layers(bucket);
    graph->end(stream());
  }
  graph->launch(stream());
  stream_.synchronize();
  logits.assign(host_logits_.data(), host_logits_.data() + static_cast<size_t>(rows) * d_.n_vocab);
  ++length_;
  ++counters_.decode_steps;
  counters_.decode_rows += rows;
  counters_.self_qkv_rows += static_cast<long long>(rows) * d_.n_text_layer;
  counters_.cross_query_rows += static_cast<long long>(rows) * d_.n_text_layer;
  counters_.decode_seconds += seconds_since(start);
}

template <typename T>
void CudaWindowEngine<T>::rearrange_kv_cache(const std::vector<int>& source_rows) {
  for (int r : source_rows)
    if (r < 0 || r >= max_rows_) throw Error("beam reorder names a row out of range");
  bool identity = true;
  for (size_t i = 0; i < source_rows.size(); ++i) identity = identity && source_rows[i] == static_cast<int>(i);
  if (!identity && length_ > 0) copy_rows(source_rows);
}

// Row i of every layer's self-attention cache continues from source_rows[i]'s filled prefix.
template <typename T>
void CudaWindowEngine<T>::copy_rows(const std::vector<int>& source_rows) {
  const int rows = static_cast<int>(source_rows.size());
  cudaStream_t s = stream();
  source_rows_.upload(source_rows, s);
  const size_t row_elements = static_cast<size_t>(d_.n_text_ctx) * d_.n_text_state;
  for (int l = 0; l < d_.n_text_layer; ++l)
    for (T* cache : {self_keys(l), self_values(l)}) {
      cuda::gather_cache_rows<T>(cache, reorder_scratch_.data(), source_rows_.data(), rows, length_, d_.n_text_ctx,
                                 d_.n_text_state, s);
      AURIS_CUDA_CHECK(cudaMemcpyAsync(cache, reorder_scratch_.data(), rows * row_elements * sizeof(T),
                                       cudaMemcpyDeviceToDevice, s));
    }
  stream_.synchronize();
}

}  // namespace

std::unique_ptr<WindowEngine> cuda::make_window_engine(std::shared_ptr<const CudaWeights> weights) {
  switch (weights->compute_type) {
    case ComputeType::kFloat32: return std::make_unique<CudaWindowEngine<float>>(std::move(weights));
    case ComputeType::kFloat16: return std::make_unique<CudaWindowEngine<__half>>(std::move(weights));
    case ComputeType::kBfloat16: return std::make_unique<CudaWindowEngine<__nv_bfloat16>>(std::move(weights));
    case ComputeType::kInt8: break;
  }
  throw Error("compute type int8 runs on the CPU only: on CUDA use float16, bfloat16 or float32");
}

}  // namespace auris
