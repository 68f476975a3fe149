// The CUDA engine for one window, or for a batch's slots of windows: the encoder on cuBLAS, each
// window's cross-attention K/V computed once and kept head-major on the device, a prefill, and
// decode steps captured as one CUDA graph per row-count bucket and replayed: between steps the host
// writes only the new tokens, each row's cache row, position, length and window, and the step's
// filter rules (read by the graph's kernels from fixed device addresses), and reads back each row's
// proposed tokens, which the graph's tail chose from the filtered logits. A batch's step takes the
// rows of every slot at once, so its weights are read once for all of them (BatchPasses); its rows'
// logits come back to the host, whose filters run per window.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <type_traits>

#include "auris/error.h"
#include "kernels/cuda/blas.h"
#include "kernels/cuda/kernels.h"
#include "whisper/cuda/cuda_weights.h"
#include "whisper/cuda/cuda_window_engine.h"
#include "decoding/step_proposals.h"
#include "decoding/step_rules.h"
#include "whisper/batch_passes.h"
#include "whisper/cuda/step_tail_rules.h"
#include "whisper/inference_calls.h"
#include "whisper/layer_sequence.h"

namespace auris {

namespace {

using cuda::DecodeAttentionShape;
using cuda::DeviceBuffer;

constexpr int kHead = 64;
constexpr int kMaxBucket = 64;  // rows one captured step takes at most (every slot's beams or best-of)
static_assert(kMaxBucket <= cuda::kStepTailMaxRows, "the step's tail takes every row of a step");
constexpr size_t kBlasWorkspaceBytes = 32u << 20;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void keep_device_time(std::vector<float>& times, const cuda::EventTimer& timer) {
  if (times.size() < EngineCounters::kDeviceTimesKept) times.push_back(timer.elapsed_ms());
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
  // Rows each projection multiplies per launch, by layer: counted by the ops while they were captured.
  std::map<const void*, long long> rows_per_launch;

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// The step's inputs at fixed device addresses, a value per row.
struct StepInputs {
  int tokens[kMaxBucket];
  int positions[kMaxBucket];
  int rows[kMaxBucket];       // the row's self-attention cache row
  int n_kv[kMaxBucket];       // keys it reads: its window's filled prefix, this step's position included
  int n_visible[kMaxBucket];  // keys that count (n_kv, but the full-cache ablation reads all 448 and masks)
  int n_ctx[kMaxBucket];      // its window's 1500 cross-attention keys
  int windows[kMaxBucket];    // its window's slot
  cuda::StepTailInputs tail;  // the logit filters and the choice, for the step's tail
};

// One slot's rows in a step.
struct StepPart {
  int slot;
  std::vector<int> tokens;  // each row's newest token
};

// As a WindowEngine it decodes slot 0's window; as BatchPasses, every slot's.
template <typename T>
class CudaWindowEngine final : public WindowEngine, public BatchPasses {
 public:
  CudaWindowEngine(std::shared_ptr<const CudaWeights> weights, int slots)
      : holder_(std::move(weights)),
        w_(static_cast<const cuda::WeightsOf<T>&>(*holder_)),
        d_(w_.dims),
        workspace_(kBlasWorkspaceBytes),
        blas_(stream_.get(), workspace_.data(), kBlasWorkspaceBytes),
        host_inputs_(1),
        host_logits_(static_cast<size_t>(kMaxBucket) * d_.n_vocab),
        host_tail_tokens_(static_cast<size_t>(kMaxBucket) * cuda::kStepTailMaxK),
        host_tail_logprobs_(static_cast<size_t>(kMaxBucket) * cuda::kStepTailMaxK),
        slots_(slots),
        lengths_(slots, 0),
        prefilled_rows_(slots, 0),
        has_window_(slots, 0),
        pending_reorders_(slots) {
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
    cross_.resize(static_cast<size_t>(slots) * ctx * kv_width);
    inputs_.resize(1);
    logits_.resize(static_cast<size_t>(std::max<int>(kMaxBucket, 2)) * d_.n_vocab);
    masked_logits_.resize(static_cast<size_t>(cuda::kStepTailMaxRows) * d_.n_vocab);
    tail_tokens_.resize(static_cast<size_t>(cuda::kStepTailMaxRows) * cuda::kStepTailMaxK);
    tail_logprobs_.resize(static_cast<size_t>(cuda::kStepTailMaxRows) * cuda::kStepTailMaxK);
    partial_.resize(std::max(
        cuda::decode_attention_scratch({kMaxBucket, d_.n_text_head, d_.n_text_ctx, false}),
        cuda::decode_attention_scratch({kMaxBucket, d_.n_text_head, d_.n_audio_ctx, true})));
    tickets_.resize(cuda::decode_attention_tickets({kMaxBucket, d_.n_text_head, d_.n_audio_ctx, true}));
    AURIS_CUDA_CHECK(cudaMemsetAsync(tickets_.data(), 0, tickets_.size() * sizeof(int), stream()));
  }

  // WindowEngine, over slot 0.
  void set_window(const LogMel& window) override { encode_slot(0, window); }
  void alignment_pass(const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                      const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
                      std::vector<float>& cross_scores) override {
    align(0, tokens, logit_positions, heads, logits, cross_scores);
  }
  EngineCounters counters() const override;
  void set_ablations(const EngineAblations& ablations) override {
    ablations_ = ablations;
    graphs_.clear();  // the full-cache ablation changes what a step reads
  }

  void logits(const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out,
              const std::vector<int>& extra_positions = {}, std::vector<float>* extra_logits_out = nullptr) override;
  bool propose(const std::vector<std::vector<int>>& tokens, const StepRules& rules, Selection selection, int k,
               StepProposals& out) override;
  void rearrange_kv_cache(const std::vector<int>& source_rows) override;
  void reset() override { reset(0); }
  int n_vocab() const override { return d_.n_vocab; }

  // BatchPasses. A slot's reorder waits for its next decode or alignment pass, which the batch's
  // one serving thread runs: slot threads may reorder side by side, and the stream is shared.
  int slots() const override { return slots_; }
  void encode(std::vector<Encode>& windows) override;
  void decode(std::vector<Decode>& calls) override;
  void align(int slot, const std::vector<int>& tokens, const std::vector<int>& logit_positions,
             const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
             std::vector<float>& cross_scores) override;
  void rearrange(int slot, const std::vector<int>& source_rows) override {
    check_reorder(slot, source_rows);
    pending_reorders_[slot] = source_rows;
  }
  void reset(int slot) override {
    lengths_[slot] = 0;
    pending_reorders_[slot].clear();
  }
  bool has_window(int slot) const override { return has_window_[slot] != 0; }
  bool proposes() const override { return !ablations_.host_step_tail; }

 private:
  cudaStream_t stream() const { return stream_.get(); }
  // The self-attention cache: per layer, rows_per_slot_ rows for each slot, then one row that a
  // step's padding rows write and read.
  int cache_rows() const { return slots_ * rows_per_slot_ + 1; }
  int padding_row() const { return slots_ * rows_per_slot_; }
  size_t cache_row_size() const { return static_cast<size_t>(d_.n_text_ctx) * d_.n_text_state; }
  size_t self_cache_layer_size() const { return cache_rows() * cache_row_size(); }
  T* self_keys(int layer) { return self_k_.data() + layer * self_cache_layer_size(); }
  T* self_values(int layer) { return self_v_.data() + layer * self_cache_layer_size(); }
  // Each slot's cross K/V, all layers: [layers][K|V][heads][n_ctx][64].
  size_t window_stride() const { return static_cast<size_t>(d_.n_audio_ctx) * w_.cross_kv_all_layers.out; }
  const T* cross_keys(int layer, int slot = 0) const {
    return cross_.data() + slot * window_stride() + static_cast<size_t>(layer) * 2 * d_.n_audio_ctx * d_.n_text_state;
  }
  const T* cross_values(int layer, int slot = 0) const {
    return cross_keys(layer, slot) + static_cast<size_t>(d_.n_audio_ctx) * d_.n_text_state;
  }

  struct PassOps;  // the layers' ops (layer_sequence.h) on the device
  void encode_slot(int slot, const LogMel& window);
  void compute_cross_kv(int slot);
  // Room for `rows` rows a slot; the slots' filled caches move to the wider layout.
  void ensure_rows(int rows);
  // A slot's Inference::logits at its prefill: the prompt once, its logits every row's.
  void prefill_call_of(int slot, const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out,
                       const std::vector<int>& extra_positions, std::vector<float>* extra_logits_out);
  // capture_heads: (layer, head) pairs whose pre-softmax cross-attention scores q·k/sqrt(d_head) go
  // to *capture_out, [heads x tokens x n_audio_ctx] (the alignment pass).
  void prefill(int slot, const std::vector<int>& tokens, const std::vector<int>& positions, std::vector<float>& logits,
               const std::vector<std::pair<int, int>>* capture_heads = nullptr, std::vector<float>* capture_out = nullptr);
  // One decode step of the parts' rows through the bucket's graph, its tail as host_inputs_'s says;
  // the logits ([rows x n_vocab], the parts' rows in order) come back only where `logits` is given.
  void step(const std::vector<StepPart>& parts, std::vector<float>* logits);
  void check_reorder(int slot, const std::vector<int>& source_rows) const;
  // Row i of the slot continues from its row source_rows[i]'s filled prefix.
  void copy_rows(int slot, const std::vector<int>& source_rows);
  void apply_pending_reorder(int slot);
  bool pack_chunk_tail(const std::vector<StepPart>& chunk, const std::vector<Decode*>& members);

  // y = x W^T: a decode step's few rows through the own gemv kernel, more through cuBLAS. Counts the
  // rows in tally_.
  template <typename B>
  void linear(const T* x, int rows, const cuda::DeviceLinear<T>& l, B* y) {
    (*tally_)[&l] += rows;
    if constexpr (std::is_same_v<B, T>) {
      if (rows <= cuda::kGemvMaxRows) return cuda::gemv(gemv_over(x, rows, l, y), stream());
    }
    blas_.linear<T, B>(x, rows, l.in, l.in, l.weight.data(), l.out, y, l.out);
  }
  // The gemv of `rows` rows of x (row stride l.in) through l into y (row stride l.out), nothing fused.
  template <typename B>
  static cuda::Gemv<T, B> gemv_over(const T* x, int rows, const cuda::DeviceLinear<T>& l, B* y) {
    cuda::Gemv<T, B> g;
    g.rows = rows, g.in = l.in, g.out = l.out, g.w = l.weight.data();
    g.x = x, g.ldx = l.in, g.y = y, g.ldy = l.out;
    return g;
  }
  // y = GELU(x W^T + b), the bias and GELU in the gemv kernel where it runs.
  void linear_gelu(const T* x, int rows, const cuda::DeviceLinear<T>& l, T* y) {
    (*tally_)[&l] += rows;
    if (rows <= cuda::kGemvMaxRows) {
      cuda::Gemv<T> g = gemv_over(x, rows, l, y);
      g.bias = l.bias_or_null();
      g.gelu_after = true;
      return cuda::gemv(g, stream());
    }
    blas_.linear<T, T>(x, rows, l.in, l.in, l.weight.data(), l.out, y, l.out);
    cuda::bias_gelu<T>(y, l.bias_or_null(), rows, l.out, l.out, stream());
  }

  std::shared_ptr<const CudaWeights> holder_;
  const cuda::WeightsOf<T>& w_;
  const ModelDims& d_;
  cuda::Stream stream_;
  DeviceBuffer<uint8_t> workspace_;
  cuda::Blas blas_;

  DeviceBuffer<float> mel_, x_, x_float_, scores_, logits_, masked_logits_, tail_logprobs_, partial_;
  DeviceBuffer<T> columns_, normed_, qkv_, attended_, projected_, hidden_, probabilities_, encoder_out_, kv_projected_,
      cross_;
  DeviceBuffer<T> self_k_, self_v_, reorder_scratch_;
  DeviceBuffer<StepInputs> inputs_;
  DeviceBuffer<int> source_rows_, tickets_, tail_tokens_;
  PinnedBuffer<StepInputs> host_inputs_;
  PinnedBuffer<float> host_logits_;
  PinnedBuffer<int> host_tail_tokens_;
  PinnedBuffer<float> host_tail_logprobs_;
  std::map<int, std::unique_ptr<Graph>> graphs_;  // by bucket

  // Rows each projection has multiplied, by layer; tally_ points here, or at a graph's per-launch
  // count while it is captured.
  std::map<const void*, long long> rows_multiplied_;
  std::map<const void*, long long>* tally_ = &rows_multiplied_;
  const int slots_;
  int rows_per_slot_ = 0;          // rows of the self-attention cache each slot has
  std::vector<int> lengths_;       // each slot's filled positions
  std::vector<int> prefilled_rows_;  // each slot's rows since its prefill
  std::vector<char> has_window_;   // a slot's window is encoded (a byte each: slot threads read theirs)
  std::vector<std::vector<int>> pending_reorders_;  // a slot's reorder, for its next pass
  EngineAblations ablations_;
  EngineCounters counters_;
  cuda::EventTimer timer_;  // around the stage running now: encoder, prefill or step
  long long host_waits_ = 0;
  // Every wait of the host for the device goes through here, so the counters can show how many a
  // decode step costs.
  void wait_for_device() {
    stream_.synchronize();
    ++host_waits_;
  }
};

template <typename T>
void CudaWindowEngine<T>::encode_slot(int slot, const LogMel& window) {
  const int ctx = d_.n_audio_ctx, width = d_.n_audio_state, frames = 2 * ctx, mels = d_.n_mels;
  has_window_[slot] = 0;  // until this window is encoded
  if (window.n_mels != mels || window.n_frames != frames)
    throw Error("encoder expects a log-mel window of " + std::to_string(mels) + " x " + std::to_string(frames) +
                ", got " + std::to_string(window.n_mels) + " x " + std::to_string(window.n_frames));
  const auto start = std::chrono::steady_clock::now();
  cudaStream_t s = stream();
  timer_.start(s);
  mel_.upload(window.data, s);
  // conv1 over [n_mels x 3000] (channel-major), conv2 (stride 2) over conv1's [3000 x d] output.
  cuda::im2col_k3<T>(mel_.data(), mels, frames, frames, 1, 1, frames, columns_.data(), s);
  // Each convolution's bias and GELU in the pass that converts its output to fp32 (the second's
  // adding the positions).
  linear(columns_.data(), frames, w_.conv1, projected_.data());
  cuda::bias_gelu_to_float<T>(projected_.data(), w_.conv1.bias_or_null(), nullptr, frames, width, x_float_.data(), s);
  cuda::im2col_k3<T>(x_float_.data(), width, frames, 1, width, 2, ctx, columns_.data(), s);
  linear(columns_.data(), ctx, w_.conv2, projected_.data());
  cuda::bias_gelu_to_float<T>(projected_.data(), w_.conv2.bias_or_null(), w_.audio_positions.data(), ctx, width, x_.data(), s);
  PassOps ops{*this, PassOps::Pass::kEncoder, ctx};
  encoder_blocks(ops, w_.encoder_blocks, w_.encoder_ln_post);
  AURIS_CUDA_CHECK(cudaMemcpyAsync(encoder_out_.data(), normed_.data(), static_cast<size_t>(ctx) * width * sizeof(T),
                                   cudaMemcpyDeviceToDevice, s));
  timer_.stop(s);
  wait_for_device();
  counters_.encoder_seconds += seconds_since(start);
  keep_device_time(counters_.encoder_device_ms, timer_);
  ++counters_.encoder_windows;
  compute_cross_kv(slot);
  has_window_[slot] = 1;
  reset(slot);
}

// The ops of layer_sequence.h on the device, over the engine's buffers, for an encoder pass, a
// prefill (the prompt in cache row 0, through cuBLAS) or a decode step (the body of the captured
// graph: static shapes, its inputs read from inputs_). The projections leave their biases to the ops
// that read them: the attention kernels and the cache write add Q/K/V's, and each residual add is one
// kernel with the next layer norm.
//
// A fused step (EngineAblations::fused_decode_step, at most kGemvMaxRows rows) launches no layer
// norm, residual add or cache write of its own: norm() and add_and_norm() only note the norm the
// next projection of kNormed takes on the fly, and project() only notes the projection, which the op
// that reads its output launches with what it needs: self_attention() with the cache write,
// add_and_norm() adding into the residual stream.
template <typename T>
struct CudaWindowEngine<T>::PassOps {
  enum class Pass { kEncoder, kPrefill, kStep };
  CudaWindowEngine& e;
  Pass pass;
  int rows;
  int slot = 0;                 // kPrefill: whose window and cache
  const int* prompt = nullptr;  // kPrefill: tokens, positions and cache rows, `rows` of each
  const std::vector<int>* logit_positions = nullptr;  // kPrefill
  std::vector<float>* host_logits = nullptr;          // kPrefill: [positions x n_vocab]
  // kPrefill, an alignment pass: these heads' raw cross-attention scores q·k, copied to the host.
  const std::vector<std::pair<int, int>>* capture_heads = nullptr;
  std::vector<float>* capture_out = nullptr;
  // A fused step's noted norm and projection.
  const cuda::DeviceLayerNorm* pending_norm = nullptr;
  struct Projection {
    LayerBuffer from;
    const cuda::DeviceLinear<T>* linear;
  };
  std::optional<Projection> pending = std::nullopt;

  bool fused() const {
    return pass == Pass::kStep && e.ablations_.fused_decode_step && rows <= cuda::kGemvMaxRows;
  }
  // Launches the noted projection into y, finish() adding to its gemv what the op reading it needs.
  template <typename Finish>
  void run_pending(T* y, Finish finish) {
    if (!pending) throw Error("a fused decode step found no projection to launch (layer_sequence.h's order changed?)");
    const Projection p = *pending;
    pending.reset();
    cuda::Gemv<T> g = gemv_over(p.from, *p.linear, y);
    finish(g);
    run(g, *p.linear);
  }
  // A gemv of `from` through l into y; from kNormed, over the residual stream, normed on the fly.
  template <typename B>
  cuda::Gemv<T, B> gemv_over(LayerBuffer from, const cuda::DeviceLinear<T>& l, B* y) {
    cuda::Gemv<T, B> g = CudaWindowEngine::gemv_over(buffer(from), rows, l, y);
    if (from == LayerBuffer::kNormed) {
      g.x = nullptr;
      g.normed_from = e.x_.data();
      g.gamma = pending_norm->gamma.data();
      g.beta = pending_norm->beta.data();
    }
    return g;
  }
  template <typename B>
  void run(const cuda::Gemv<T, B>& g, const cuda::DeviceLinear<T>& l) {
    (*e.tally_)[&l] += rows;
    cuda::gemv(g, stream());
  }

  cudaStream_t stream() const { return e.stream(); }
  int width() const { return pass == Pass::kEncoder ? e.d_.n_audio_state : e.d_.n_text_state; }
  T* buffer(LayerBuffer b) const {
    switch (b) {
      case LayerBuffer::kNormed: return e.normed_.data();
      case LayerBuffer::kQkv: return e.qkv_.data();
      case LayerBuffer::kAttended: return e.attended_.data();
      case LayerBuffer::kProjected: return e.projected_.data();
      case LayerBuffer::kHidden: return e.hidden_.data();
    }
    return nullptr;
  }

  void embed() {
    const int tw = e.d_.n_text_state;
    const int* tokens = pass == Pass::kStep ? e.inputs_.data()->tokens : prompt;
    const int* positions = pass == Pass::kStep ? e.inputs_.data()->positions : prompt + rows;
    cuda::embed<T>(tokens, positions, rows, e.w_.token_embedding.weight.data(), e.w_.text_positions.data(), tw,
                   e.x_.data(), stream());
  }
  void norm(const cuda::DeviceLayerNorm& ln) {
    if (fused()) {
      pending_norm = &ln;
      return;
    }
    cuda::layer_norm<T>(e.x_.data(), rows, width(), ln.gamma.data(), ln.beta.data(), e.normed_.data(), stream());
  }
  void project(LayerBuffer from, const cuda::DeviceLinear<T>& l, LayerBuffer to) {
    if (fused()) {
      // Its reader launches it into `to`: the layer sequence projects into the buffer the next op reads.
      if (pending) throw Error("a fused decode step noted two projections in a row");
      pending = Projection{from, &l};
      return;
    }
    e.linear(buffer(from), rows, l, buffer(to));
  }
  void project_gelu(LayerBuffer from, const cuda::DeviceLinear<T>& l, LayerBuffer to) {
    if (fused()) {
      cuda::Gemv<T> g = gemv_over(from, l, buffer(to));
      g.bias = l.bias_or_null();
      g.gelu_after = true;
      return run(g, l);
    }
    e.linear_gelu(buffer(from), rows, l, buffer(to));
  }
  void self_attention(int layer, const cuda::DeviceLinear<T>& qkv_layer) {
    const int w = width();
    const T* qkv = e.qkv_.data();
    cudaStream_t s = stream();
    if (pass == Pass::kStep) {
      const int heads = e.d_.n_text_head;
      const StepInputs* in = e.inputs_.data();
      if (fused()) {  // the projection writes the rows' K and V into the cache itself
        run_pending(e.qkv_.data(), [&](cuda::Gemv<T>& g) {
          g.k_cache = e.self_keys(layer), g.v_cache = e.self_values(layer), g.cache_bias = qkv_layer.bias_or_null();
          g.cache_rows = in->rows, g.positions = in->positions, g.capacity = e.d_.n_text_ctx;
        });
      } else {
        cuda::append_kv<T>(qkv, rows, 3 * w, w, qkv_layer.bias_or_null(), in->rows, in->positions, e.self_keys(layer),
                           e.self_values(layer), e.d_.n_text_ctx, s);
      }
      cuda::decode_attention<T>(qkv, 3 * w, qkv_layer.bias_or_null(), e.self_keys(layer), e.self_values(layer), in->n_kv,
                                in->n_visible, in->rows, {rows, heads, e.d_.n_text_ctx, false}, e.partial_.data(),
                                e.tickets_.data(), e.attended_.data(), w, s);
      return;
    }
    cuda::add_bias<T>(e.qkv_.data(), qkv_layer.bias_or_null(), rows, 3 * w, 3 * w, s);
    if (pass == Pass::kEncoder) {
      const int heads = e.d_.n_audio_head;
      if constexpr (!std::is_same_v<T, float>) {
        if (e.ablations_.fused_encoder_attention) {
          cuda::encoder_attention<T>(qkv, rows, heads, 0.125f, e.attended_.data(), w, s);
          return;
        }
      }
      e.blas_.template head_scores<T>({qkv, 3 * w, kHead}, {qkv + w, 3 * w, kHead}, rows, rows, kHead, heads, e.scores_.data());
      cuda::softmax_rows<T>(e.scores_.data(), heads * rows, rows, 0.125f, e.probabilities_.data(), s);
      e.blas_.template head_values<T>(e.probabilities_.data(), {qkv + 2 * w, 3 * w, kHead}, rows, rows, kHead, heads,
                                      e.attended_.data(), w);
      return;
    }
    // A prefill: the prompt's K/V into the slot's first cache row, then its queries over them, causally.
    const int heads = e.d_.n_text_head;
    const size_t own_rows = static_cast<size_t>(slot) * e.rows_per_slot_ * e.cache_row_size();
    cuda::append_kv<T>(qkv, rows, 3 * w, w, nullptr, prompt + 2 * rows, prompt + rows, e.self_keys(layer),
                       e.self_values(layer), e.d_.n_text_ctx, s);
    e.blas_.template head_scores<T>({qkv, 3 * w, kHead}, {e.self_keys(layer) + own_rows, w, kHead}, rows, rows, kHead, heads,
                                    e.scores_.data());
    cuda::softmax_rows<T>(e.scores_.data(), heads * rows, rows, 0.125f, e.probabilities_.data(), s, rows, 0);
    e.blas_.template head_values<T>(e.probabilities_.data(), {e.self_values(layer) + own_rows, w, kHead}, rows, rows, kHead, heads,
                                    e.attended_.data(), w);
  }
  void cross_attention(int layer, const cuda::DeviceLinear<T>& query) {
    const int tw = e.d_.n_text_state, heads = e.d_.n_text_head, ctx = e.d_.n_audio_ctx;
    cudaStream_t s = stream();
    if (pass == Pass::kStep) {
      const StepInputs* in = e.inputs_.data();
      if (fused()) run_pending(e.projected_.data(), [](cuda::Gemv<T>&) {});
      const long window_stride = static_cast<long>(e.window_stride());
      cuda::decode_attention<T>(e.projected_.data(), tw, query.bias_or_null(), e.cross_keys(layer), e.cross_values(layer),
                                in->n_ctx, in->n_ctx, in->windows, {rows, heads, ctx, true, window_stride},
                                e.partial_.data(), e.tickets_.data(), e.attended_.data(), tw, s);
      return;
    }
    cuda::add_bias<T>(e.projected_.data(), query.bias_or_null(), rows, tw, tw, s);
    const long long head_stride = static_cast<long long>(ctx) * kHead;
    e.blas_.template head_scores<T>({e.projected_.data(), tw, kHead}, {e.cross_keys(layer, slot), kHead, head_stride}, rows, ctx,
                                    kHead, heads, e.scores_.data());
    if (capture_heads) {
      const size_t per_head = static_cast<size_t>(rows) * ctx;
      for (size_t i = 0; i < capture_heads->size(); ++i) {
        const auto [head_layer, head] = (*capture_heads)[i];
        if (head_layer == layer)
          AURIS_CUDA_CHECK(cudaMemcpyAsync(capture_out->data() + i * per_head, e.scores_.data() + head * per_head,
                                           per_head * sizeof(float), cudaMemcpyDeviceToHost, s));
      }
    }
    cuda::softmax_rows<T>(e.scores_.data(), heads * rows, ctx, 0.125f, e.probabilities_.data(), s);
    e.blas_.template head_values<T>(e.probabilities_.data(), {e.cross_values(layer, slot), kHead, head_stride}, rows, ctx, kHead,
                                    heads, e.attended_.data(), tw);
  }
  void add_and_norm(const cuda::DeviceLinear<T>& l, const cuda::DeviceLayerNorm& ln) {
    if (fused()) {
      run_pending(nullptr, [&](cuda::Gemv<T>& g) {
        g.residual = e.x_.data();
        g.bias = l.bias_or_null();
      });
      pending_norm = &ln;
      return;
    }
    cuda::residual_layer_norm<T>(e.x_.data(), e.projected_.data(), l.bias_or_null(), rows, width(), ln.gamma.data(),
                                 ln.beta.data(), e.normed_.data(), stream());
  }
  // A step's logits go through its tail (filters, log-softmax, choice) inside the graph, whose
  // proposals go to pinned host buffers; the logits stay on the device unless step() fetches them.
  // A prefill's wanted rows (an alignment pass wants one per text token) are gathered into kHidden,
  // free by now, and projected as many at a time as logits_ holds, each chunk copied to *host_logits.
  void logits() {
    const int tw = e.d_.n_text_state;
    const size_t n_vocab = static_cast<size_t>(e.d_.n_vocab);
    cudaStream_t s = stream();
    if (pass == Pass::kStep) {
      if (fused())
        run(gemv_over(LayerBuffer::kNormed, e.w_.token_embedding, e.logits_.data()), e.w_.token_embedding);
      else
        e.linear(e.normed_.data(), rows, e.w_.token_embedding, e.logits_.data());
      cuda::step_tail(e.logits_.data(), rows, e.d_.n_vocab, &e.inputs_.data()->tail, e.masked_logits_.data(),
                      e.tail_tokens_.data(), e.tail_logprobs_.data(), s);
      const size_t proposals = static_cast<size_t>(rows) * cuda::kStepTailMaxK;  // rows x k, k at most this
      AURIS_CUDA_CHECK(cudaMemcpyAsync(e.host_tail_tokens_.data(), e.tail_tokens_.data(), proposals * sizeof(int),
                                       cudaMemcpyDeviceToHost, s));
      AURIS_CUDA_CHECK(cudaMemcpyAsync(e.host_tail_logprobs_.data(), e.tail_logprobs_.data(), proposals * sizeof(float),
                                       cudaMemcpyDeviceToHost, s));
      return;
    }
    const int k = static_cast<int>(logit_positions->size());
    host_logits->resize(k * n_vocab);
    const int chunk = static_cast<int>(e.logits_.size() / n_vocab);
    for (int first = 0; first < k; first += chunk) {
      const int n = std::min(chunk, k - first);
      for (int i = 0; i < n; ++i)
        AURIS_CUDA_CHECK(cudaMemcpyAsync(e.hidden_.data() + static_cast<size_t>(i) * tw,
                                         e.normed_.data() + static_cast<size_t>((*logit_positions)[first + i]) * tw,
                                         tw * sizeof(T), cudaMemcpyDeviceToDevice, s));
      e.linear(e.hidden_.data(), n, e.w_.token_embedding, e.logits_.data());
      e.logits_.download(host_logits->data() + first * n_vocab, n * n_vocab, s);
      e.wait_for_device();  // the next chunk overwrites logits_ and the host copy reads it
    }
  }
};

// One projection of the encoder output for every decoder layer's K and V, regrouped head-major into
// the slot's part of cross_.
template <typename T>
void CudaWindowEngine<T>::compute_cross_kv(int slot) {
  const auto start = std::chrono::steady_clock::now();
  const int ctx = d_.n_audio_ctx, kv_width = w_.cross_kv_all_layers.out;
  linear(encoder_out_.data(), ctx, w_.cross_kv_all_layers, kv_projected_.data());
  cuda::add_bias<T>(kv_projected_.data(), w_.cross_kv_all_layers.bias_or_null(), ctx, kv_width, kv_width, stream());
  cuda::regroup_heads<T>(kv_projected_.data(), ctx, kv_width / kHead, cross_.data() + slot * window_stride(), stream());
  wait_for_device();
  counters_.cross_kv_seconds += seconds_since(start);
}

template <typename T>
void CudaWindowEngine<T>::ensure_rows(int rows) {
  if (rows > kMaxBucket)
    throw Error("--device cuda decodes at most " + std::to_string(kMaxBucket) + " sequences of a window at once (beam size x best of)");
  // Exactly `rows`: a step's padding rows have a cache row of their own (padding_row()).
  const int needed = rows;
  if (needed <= rows_per_slot_) return;
  const int old_rows_per_slot = rows_per_slot_;
  const size_t old_layer_size = old_rows_per_slot ? self_cache_layer_size() : 0;
  rows_per_slot_ = needed;
  const size_t size = static_cast<size_t>(d_.n_text_layer) * self_cache_layer_size();
  DeviceBuffer<T> keys(size), values(size);
  AURIS_CUDA_CHECK(cudaMemsetAsync(keys.data(), 0, size * sizeof(T), stream()));
  AURIS_CUDA_CHECK(cudaMemsetAsync(values.data(), 0, size * sizeof(T), stream()));
  // Other slots may be mid-decode: their rows move to the wider layout.
  if (old_rows_per_slot) {
    const size_t slot_bytes = old_rows_per_slot * cache_row_size() * sizeof(T);
    for (int l = 0; l < d_.n_text_layer; ++l)
      for (int slot = 0; slot < slots_; ++slot) {
        const size_t from = l * old_layer_size + slot * old_rows_per_slot * cache_row_size();
        const size_t to = l * self_cache_layer_size() + slot * rows_per_slot_ * cache_row_size();
        AURIS_CUDA_CHECK(cudaMemcpyAsync(keys.data() + to, self_k_.data() + from, slot_bytes, cudaMemcpyDeviceToDevice, stream()));
        AURIS_CUDA_CHECK(cudaMemcpyAsync(values.data() + to, self_v_.data() + from, slot_bytes, cudaMemcpyDeviceToDevice, stream()));
      }
  }
  wait_for_device();  // the old buffers are freed next
  self_k_ = std::move(keys);
  self_v_ = std::move(values);
  reorder_scratch_ = DeviceBuffer<T>(rows_per_slot_ * cache_row_size());
  source_rows_.resize(kMaxBucket);
  graphs_.clear();  // they point at the old cache
}

template <typename T>
void CudaWindowEngine<T>::prefill_call_of(int slot, const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out,
                                          const std::vector<int>& extra_positions, std::vector<float>* extra_logits_out) {
  const PrefillCall call = prefill_call(tokens, extra_positions, extra_logits_out);
  ensure_rows(call.rows);
  std::vector<float> prefill_logits;
  prefill(slot, call.prompt, call.logit_positions, prefill_logits);
  copy_rows(slot, std::vector<int>(call.rows, 0));  // every row continues from the one prefilled prompt
  prefilled_rows_[slot] = call.rows;
  replicate_prefill_logits(call, prefill_logits, d_.n_vocab, logits_out, extra_logits_out);
}

template <typename T>
void CudaWindowEngine<T>::logits(const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out,
                                 const std::vector<int>& extra_positions, std::vector<float>* extra_logits_out) {
  if (!has_window_[0]) throw Error("decoder has no audio window: call set_window() first");
  if (lengths_[0] == 0) return prefill_call_of(0, tokens, logits_out, extra_positions, extra_logits_out);
  if (static_cast<int>(tokens.size()) > prefilled_rows_[0]) throw Error("more sequences than were prefilled");
  cuda::pack_no_tail(host_inputs_.data()->tail);
  step({{0, step_tokens(tokens, lengths_[0])}}, &logits_out);
}

template <typename T>
bool CudaWindowEngine<T>::propose(const std::vector<std::vector<int>>& tokens, const StepRules& rules, Selection selection,
                                  int k, StepProposals& out) {
  // The prefill's logits, and rules, choices or rows the tail's arrays cannot hold, go through the host.
  if (!has_window_[0] || lengths_[0] == 0 || ablations_.host_step_tail) return false;
  if (static_cast<int>(tokens.size()) > prefilled_rows_[0]) throw Error("more sequences than were prefilled");
  if (rules.row_masks.size() != tokens.size()) throw Error("the step's rules are for another number of rows");
  if (!cuda::pack_step_tail({&rules}, selection, k, host_inputs_.data()->tail)) return false;
  step({{0, step_tokens(tokens, lengths_[0])}}, nullptr);
  const size_t n = tokens.size() * k;  // [rows x k], as the tail wrote them
  out.k = k;
  out.tokens.assign(host_tail_tokens_.data(), host_tail_tokens_.data() + n);
  out.logprobs.assign(host_tail_logprobs_.data(), host_tail_logprobs_.data() + n);
  ++counters_.device_step_tails;
  return true;
}

template <typename T>
void CudaWindowEngine<T>::encode(std::vector<Encode>& windows) {
  for (Encode& w : windows) {
    try {
      encode_slot(w.slot, *w.window);
    } catch (...) {
      w.error = std::current_exception();
    }
  }
}

// Prefills one slot at a time (each a prompt of its own, through cuBLAS), then every stepping
// slot's rows in one step (in chunks of kMaxBucket rows where they are more). The proposing slots'
// filters and choice run in the step's tail where they choose alike and their rules fit its arrays;
// otherwise their rows' logits come back and the host filters and chooses, as the tail would.
template <typename T>
void CudaWindowEngine<T>::decode(std::vector<Decode>& calls) {
  std::vector<StepPart> parts;
  std::vector<Decode*> stepping;
  for (Decode& call : calls) {
    try {
      if (!has_window_[call.slot]) throw Error("decoder has no audio window: call set_window() first");
      apply_pending_reorder(call.slot);
      const int length = lengths_[call.slot];
      if (call.rules && length == 0) continue;  // the prefill's logits go through the host: unproposed
      if (length == 0) {
        prefill_call_of(call.slot, *call.rows, *call.logits, *call.extra_positions, call.extra_logits);
        continue;
      }
      if (static_cast<int>(call.rows->size()) > prefilled_rows_[call.slot]) throw Error("more sequences than were prefilled");
      if (call.rules && call.rules->row_masks.size() != call.rows->size())
        throw Error("the step's rules are for another number of rows");
      if (length >= d_.n_text_ctx)
        throw Error("decoder context is full: Whisper decodes at most " + std::to_string(d_.n_text_ctx) + " tokens");
      std::vector<int> next = step_tokens(*call.rows, length);
      for (int t : next)
        if (t < 0 || t >= d_.n_vocab) throw Error("token id " + std::to_string(t) + " is outside the vocabulary");
      parts.push_back({call.slot, std::move(next)});
      stepping.push_back(&call);
    } catch (...) {
      call.error = std::current_exception();
    }
  }
  for (size_t first = 0; first < parts.size();) {
    // A slot holds at most kMaxBucket rows (ensure_rows), so every chunk takes at least one part.
    size_t end = first, rows = 0;
    while (end < parts.size() && (end == first || rows + parts[end].tokens.size() <= static_cast<size_t>(kMaxBucket)))
      rows += parts[end++].tokens.size();
    const std::vector<StepPart> chunk(parts.begin() + first, parts.begin() + end);
    const std::vector<Decode*> members(stepping.begin() + first, stepping.begin() + end);
    first = end;
    const bool tail = pack_chunk_tail(chunk, members);
    bool wants_logits = false;
    for (const Decode* m : members) wants_logits = wants_logits || !m->rules || !tail;
    try {
      std::vector<float> logits;
      step(chunk, wants_logits ? &logits : nullptr);
      if (tail) ++counters_.device_step_tails;
      const size_t n_vocab = static_cast<size_t>(d_.n_vocab);
      size_t row = 0;
      for (size_t i = 0; i < chunk.size(); ++i) {
        Decode& m = *members[i];
        const size_t n = chunk[i].tokens.size();
        if (m.rules && tail) {
          const size_t k = static_cast<size_t>(m.k);
          m.proposals->k = m.k;
          m.proposals->tokens.assign(host_tail_tokens_.data() + row * k, host_tail_tokens_.data() + (row + n) * k);
          m.proposals->logprobs.assign(host_tail_logprobs_.data() + row * k, host_tail_logprobs_.data() + (row + n) * k);
        } else if (m.rules) {
          std::vector<float> own(logits.begin() + row * n_vocab, logits.begin() + (row + n) * n_vocab);
          apply_step_rules(*m.rules, own, d_.n_vocab);
          propose_on_host(own, static_cast<int>(n), d_.n_vocab, m.selection, m.k, *m.proposals);
        } else {
          m.logits->assign(logits.begin() + row * n_vocab, logits.begin() + (row + n) * n_vocab);
        }
        m.proposed = m.rules != nullptr;
        row += n;
      }
    } catch (...) {
      for (Decode* m : members) m->error = std::current_exception();
    }
  }
}

// The step's tail inputs for a chunk: the proposing parts' rules packed (the other parts' rows take
// the first proposing part's shared masks, their proposals unread) when every proposing part chooses
// alike and they fit; else none. Returns whether the step's tail chooses for the proposing parts.
template <typename T>
bool CudaWindowEngine<T>::pack_chunk_tail(const std::vector<StepPart>& chunk, const std::vector<Decode*>& members) {
  const Decode* proposing = nullptr;
  bool alike = true;
  for (const Decode* m : members) {
    if (!m->rules) continue;
    if (!proposing) proposing = m;
    alike = alike && m->selection == proposing->selection && m->k == proposing->k;
  }
  cuda::StepTailInputs& tail = host_inputs_.data()->tail;
  cuda::pack_no_tail(tail);
  if (!proposing || !alike) return false;
  std::vector<StepRules> unread(members.size());  // the rules of the parts that want logits
  std::vector<const StepRules*> rules;
  for (size_t i = 0; i < members.size(); ++i) {
    if (members[i]->rules) {
      rules.push_back(members[i]->rules);
      continue;
    }
    unread[i].masked_tokens = proposing->rules->masked_tokens;
    unread[i].row_masks.resize(chunk[i].tokens.size());
    unread[i].timestamp_begin = proposing->rules->timestamp_begin;
    rules.push_back(&unread[i]);
  }
  return cuda::pack_step_tail(rules, proposing->selection, proposing->k, tail);
}

template <typename T>
void CudaWindowEngine<T>::align(int slot, const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                                const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
                                std::vector<float>& cross_scores) {
  if (!has_window_[slot]) throw Error("decoder has no audio window: call set_window() first");
  if (tokens.empty()) throw Error("alignment needs at least one token");
  for (const auto& [layer, head] : heads)
    if (layer < 0 || layer >= d_.n_text_layer || head < 0 || head >= d_.n_text_head)
      throw Error("alignment head (" + std::to_string(layer) + ", " + std::to_string(head) + ") is not in the model");
  for (int p : logit_positions)
    if (p < 0 || p >= static_cast<int>(tokens.size())) throw Error("prefill logits requested for a position outside the prompt");
  pending_reorders_[slot].clear();  // the pass starts the cache over
  ensure_rows(1);
  cross_scores.assign(heads.size() * tokens.size() * d_.n_audio_ctx, 0.0f);
  prefill(slot, tokens, logit_positions, logits, &heads, &cross_scores);
  const float scale = 1.0f / std::sqrt(static_cast<float>(kHead));
  for (float& v : cross_scores) v *= scale;
  lengths_[slot] = 0;  // the pass is not a decode: the next logits() call starts a fresh prefill
}

template <typename T>
void CudaWindowEngine<T>::prefill(int slot, const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                                  std::vector<float>& logits, const std::vector<std::pair<int, int>>* capture_heads,
                                  std::vector<float>* capture_out) {
  const int n = static_cast<int>(tokens.size());
  if (n > d_.n_text_ctx) throw Error("decoder context is full: Whisper decodes at most " + std::to_string(d_.n_text_ctx) + " tokens");
  for (int t : tokens)
    if (t < 0 || t >= d_.n_vocab) throw Error("token id " + std::to_string(t) + " is outside the vocabulary");
  const auto start = std::chrono::steady_clock::now();
  cudaStream_t s = stream();
  // The prompt's tokens and positions 0..n-1, all in the slot's first cache row.
  std::vector<int> staged(3 * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) staged[i] = tokens[i], staged[n + i] = i, staged[2 * n + i] = slot * rows_per_slot_;
  DeviceBuffer<int> prompt(staged.size());
  timer_.start(s);
  prompt.upload(staged, s);
  PassOps ops{*this, PassOps::Pass::kPrefill, n, slot, prompt.data(), &logit_positions, &logits, capture_heads, capture_out};
  decoder_pass(ops, w_.decoder_blocks, w_.decoder_ln);
  timer_.stop(s);
  wait_for_device();
  lengths_[slot] = n;
  ++counters_.prefills;
  counters_.prefill_seconds += seconds_since(start);
  keep_device_time(counters_.prefill_device_ms, timer_);
}

template <typename T>
void CudaWindowEngine<T>::step(const std::vector<StepPart>& parts, std::vector<float>* logits) {
  int rows = 0;
  for (const StepPart& p : parts) rows += static_cast<int>(p.tokens.size());
  const int bucket = bucket_of(rows);
  for (const StepPart& p : parts) {
    if (lengths_[p.slot] >= d_.n_text_ctx)
      throw Error("decoder context is full: Whisper decodes at most " + std::to_string(d_.n_text_ctx) + " tokens");
    for (int t : p.tokens)
      if (t < 0 || t >= d_.n_vocab) throw Error("token id " + std::to_string(t) + " is outside the vocabulary");
  }
  const auto start = std::chrono::steady_clock::now();
  const long long waits_before = host_waits_;
  timer_.start(stream());
  if (ablations_.recompute_cross_kv_each_step) compute_cross_kv(0);  // the sequential engine's ablation: one slot
  // Each row at its slot's length, in its slot's cache rows, over its slot's window; padding rows
  // repeat the first row's token at position 0 in the padding row, which nothing else reads.
  StepInputs& in = *host_inputs_.data();
  int r = 0;
  for (const StepPart& p : parts) {
    const int length = lengths_[p.slot];
    for (size_t i = 0; i < p.tokens.size(); ++i, ++r) {
      in.tokens[r] = p.tokens[i];
      in.positions[r] = length;
      in.rows[r] = p.slot * rows_per_slot_ + static_cast<int>(i);
      in.n_kv[r] = ablations_.attend_full_self_cache ? d_.n_text_ctx : length + 1;
      in.n_visible[r] = length + 1;
      in.windows[r] = p.slot;
    }
  }
  for (; r < bucket; ++r) {
    in.tokens[r] = in.tokens[0];
    in.positions[r] = 0;
    in.rows[r] = padding_row();
    in.n_kv[r] = in.n_visible[r] = 1;
    in.windows[r] = in.windows[0];
  }
  for (r = 0; r < bucket; ++r) in.n_ctx[r] = d_.n_audio_ctx;
  AURIS_CUDA_CHECK(cudaMemcpyAsync(inputs_.data(), &in, sizeof(StepInputs), cudaMemcpyHostToDevice, stream()));
  std::unique_ptr<Graph>& graph = graphs_[bucket];
  if (!graph) {
    graph = std::make_unique<Graph>();
    const cuda::ProgrammaticLaunch overlapped(ablations_.programmatic_launch);  // recorded in the graph
    graph->begin(stream());
    tally_ = &graph->rows_per_launch;
    PassOps ops{*this, PassOps::Pass::kStep, bucket};
    decoder_pass(ops, w_.decoder_blocks, w_.decoder_ln);
    tally_ = &rows_multiplied_;
    graph->end(stream());
  }
  graph->launch(stream());
  for (const auto& [layer, rows_per_launch] : graph->rows_per_launch) rows_multiplied_[layer] += rows_per_launch;
  const size_t n_logits = static_cast<size_t>(rows) * d_.n_vocab;
  if (logits)
    AURIS_CUDA_CHECK(cudaMemcpyAsync(host_logits_.data(), logits_.data(), n_logits * sizeof(float), cudaMemcpyDeviceToHost,
                                     stream()));
  timer_.stop(stream());
  wait_for_device();
  if (logits) logits->assign(host_logits_.data(), host_logits_.data() + n_logits);
  for (const StepPart& p : parts) ++lengths_[p.slot];
  ++counters_.decode_steps;
  counters_.decode_rows += rows;
  counters_.decode_seconds += seconds_since(start);
  counters_.step_host_waits += host_waits_ - waits_before;
  keep_device_time(counters_.step_device_ms, timer_);
}

template <typename T>
EngineCounters CudaWindowEngine<T>::counters() const {
  EngineCounters c = counters_;
  auto rows_of = [&](const void* layer) {
    const auto it = rows_multiplied_.find(layer);
    return it == rows_multiplied_.end() ? 0LL : it->second;
  };
  c.cross_kv_rows = rows_of(&w_.cross_kv_all_layers);
  for (const auto& b : w_.decoder_blocks) {
    c.self_qkv_rows += rows_of(&b.qkv);
    c.cross_query_rows += rows_of(&b.cross_query);
  }
  return c;
}

template <typename T>
void CudaWindowEngine<T>::check_reorder(int slot, const std::vector<int>& source_rows) const {
  const int rows = prefilled_rows_[slot];
  if (static_cast<int>(source_rows.size()) > rows) throw Error("beam reorder names more rows than were prefilled");
  for (int r : source_rows)
    if (r < 0 || r >= rows) throw Error("beam reorder names a row out of range");
}

template <typename T>
void CudaWindowEngine<T>::rearrange_kv_cache(const std::vector<int>& source_rows) {
  check_reorder(0, source_rows);
  pending_reorders_[0] = source_rows;
  const long long waits_before = host_waits_;
  apply_pending_reorder(0);
  counters_.step_host_waits += host_waits_ - waits_before;
}

template <typename T>
void CudaWindowEngine<T>::apply_pending_reorder(int slot) {
  std::vector<int> source_rows;
  source_rows.swap(pending_reorders_[slot]);
  bool identity = true;
  for (size_t i = 0; i < source_rows.size(); ++i) identity = identity && source_rows[i] == static_cast<int>(i);
  if (!identity && lengths_[slot] > 0) copy_rows(slot, source_rows);
}

template <typename T>
void CudaWindowEngine<T>::copy_rows(int slot, const std::vector<int>& source_rows) {
  const int rows = static_cast<int>(source_rows.size()), first = slot * rows_per_slot_;
  cudaStream_t s = stream();
  std::vector<int> absolute(source_rows);
  for (int& r : absolute) r += first;
  source_rows_.upload(absolute, s);
  const size_t row_bytes = cache_row_size() * sizeof(T);
  for (int l = 0; l < d_.n_text_layer; ++l)
    for (T* cache : {self_keys(l), self_values(l)}) {
      cuda::gather_cache_rows<T>(cache, reorder_scratch_.data(), source_rows_.data(), rows, lengths_[slot], d_.n_text_ctx,
                                 d_.n_text_state, s);
      AURIS_CUDA_CHECK(cudaMemcpyAsync(cache + first * cache_row_size(), reorder_scratch_.data(), rows * row_bytes,
                                       cudaMemcpyDeviceToDevice, s));
    }
  // No wait: the next pass runs after the copies on the same stream, and source_rows went to a
  // staging buffer before upload() returned.
}

}  // namespace

namespace {

template <template <typename> class Make>
auto for_compute_type(std::shared_ptr<const CudaWeights> weights, int slots) {
  switch (weights->compute_type) {
    case ComputeType::kFloat32: return Make<float>::make(std::move(weights), slots);
    case ComputeType::kFloat16: return Make<__half>::make(std::move(weights), slots);
    case ComputeType::kBfloat16: return Make<__nv_bfloat16>::make(std::move(weights), slots);
    case ComputeType::kInt8:
    case ComputeType::kInt8Bfloat16: break;
  }
  throw Error("compute types int8 and int8_bfloat16 run on the CPU only: on CUDA use float16, bfloat16 or float32");
}
template <typename T>
struct MakeEngine {
  static std::unique_ptr<WindowEngine> make(std::shared_ptr<const CudaWeights> w, int slots) {
    return std::make_unique<CudaWindowEngine<T>>(std::move(w), slots);
  }
};
template <typename T>
struct MakePasses {
  static std::unique_ptr<BatchPasses> make(std::shared_ptr<const CudaWeights> w, int slots) {
    return std::make_unique<CudaWindowEngine<T>>(std::move(w), slots);
  }
};

}  // namespace

std::unique_ptr<WindowEngine> cuda::make_window_engine(std::shared_ptr<const CudaWeights> weights) {
  return for_compute_type<MakeEngine>(std::move(weights), 1);
}

std::unique_ptr<BatchPasses> cuda::make_batch_passes(std::shared_ptr<const CudaWeights> weights, int slots) {
  if (slots < 1) throw Error("a batch needs at least one window, got " + std::to_string(slots));
  return for_compute_type<MakePasses>(std::move(weights), slots);
}

}  // namespace auris
