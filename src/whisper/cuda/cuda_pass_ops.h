// CudaWindowEngine's PassOps: the layers' ops of layer_sequence.h on the device.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "auris/error.h"
#include "kernels/cuda/kernels.h"
#include "whisper/cuda/cuda_window_engine.h"
#include "whisper/layer_sequence.h"

namespace auris::cuda {

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
        if (e.ablations_.cudnn_encoder_attention) {
          e.cudnn_attention().template encoder_attention<T>(qkv, rows, heads, 0.125f, e.attended_.data(), w);
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

}  // namespace auris::cuda
