// The CUDA engine for one window, or for a batch's slots of windows: the encoder on cuBLAS, each
// window's cross-attention K/V computed once and kept head-major on the device, a prefill, and
// decode steps captured as one CUDA graph per row-count bucket and replayed: between steps the host
// writes only the new tokens, each row's cache row, position, length and window, and the step's
// filter rules (read by the graph's kernels from fixed device addresses), and reads back each row's
// proposed tokens, which the graph's tail chose from the filtered logits. A batch's step takes the
// rows of every slot at once, so its weights are read once for all of them (BatchPasses); its rows'
// logits come back to the host, whose filters run per window.
//
// The class is here for cuda_pass_ops.h, its ops on the device; the plugin makes it through the two
// functions at the end.
#pragma once

#include <map>
#include <memory>
#include <type_traits>
#include <vector>

#include "kernels/cuda/blas.h"
#include "kernels/cuda/cudnn_attention.h"
#include "kernels/cuda/device.h"
#include "kernels/cuda/kernels.h"
#include "whisper/batch_passes.h"
#include "whisper/cuda/cuda_backend.h"
#include "whisper/cuda/cuda_graph.h"
#include "whisper/cuda/cuda_weights.h"
#include "whisper/cuda/step_inputs.h"
#include "whisper/engine_counters.h"
#include "whisper/window_engine.h"

namespace auris::cuda {

// As a WindowEngine it decodes slot 0's window; as BatchPasses, every slot's.
template <typename T>
class CudaWindowEngine final : public WindowEngine, public BatchPasses {
 public:
  static constexpr int kHead = 64;  // every Whisper model's attention head width
  static constexpr size_t kBlasWorkspaceBytes = 32u << 20;

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
  // cuDNN's attention on the engine's stream, opened the first time an encoder pass asks for it.
  cuda::CudnnAttention& cudnn_attention() {
    if (!cudnn_attention_) cudnn_attention_ = std::make_unique<cuda::CudnnAttention>(stream());
    return *cudnn_attention_;
  }
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
  // The graph of a step of `bucket` rows (step()'s inputs_ and host_inputs_ as it leaves them): kept
  // only once captured whole, so a failure leaves the stream running and no graph behind.
  std::unique_ptr<Graph> capture_step(int bucket);
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
  std::unique_ptr<cuda::CudnnAttention> cudnn_attention_;  // with --cudnn-encoder-attention

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

std::unique_ptr<WindowEngine> make_window_engine(std::shared_ptr<const CudaWeights> weights);
// `slots` windows decoded together: each step reads the weights once for every slot's rows.
std::unique_ptr<BatchPasses> make_batch_passes(std::shared_ptr<const CudaWeights> weights, int slots);

}  // namespace auris::cuda
