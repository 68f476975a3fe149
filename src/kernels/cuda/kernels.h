// The CUDA kernels of the transformer blocks, launched on a stream; every one has a CPU definition
// in src/kernels/cpu that kernels_cuda_test.cc compares it with. T is the activations' and weights'
// storage type (float, __half, __nv_bfloat16); arithmetic is fp32. The residual stream is fp32.
#pragma once

#include <cuda_runtime.h>

namespace auris::cuda {

// y[r] = (x[r] - mean) / sqrt(var + eps) * gamma + beta over rows of width n.
template <typename T>
void layer_norm(const float* x, int rows, int n, const float* gamma, const float* beta, T* y, cudaStream_t s,
                float eps = 1e-5f);
// x[r][c] += y[r][c] + bias[c] (bias may be null): a projection's output joins the residual stream.
template <typename T>
void add_to_residual(float* x, const T* y, const float* bias, int rows, int n, cudaStream_t s);
// add_to_residual, then layer_norm of the updated x into normed, in one pass over each row: what
// every sublayer's end and the next one's start do, with the same results as the two kernels.
template <typename T>
void residual_layer_norm(float* x, const T* y, const float* bias, int rows, int n, const float* gamma,
                         const float* beta, T* normed, cudaStream_t s, float eps = 1e-5f);
// y[r][c] = GELU(y[r][c] + bias[c]), exact (erf) GELU; ldy is y's row stride.
template <typename T>
void bias_gelu(T* y, const float* bias, int rows, int n, int ldy, cudaStream_t s);
// x[r][c] = GELU(y[r][c] + bias[c]) rounded to T, as bias_gelu() leaves it, then in fp32 plus
// add[r][c] (add may be null), as convert() adds it: a convolution's epilogue and the conversion to
// the fp32 stream after it, in one pass.
template <typename T>
void bias_gelu_to_float(const T* y, const float* bias, const float* add, int rows, int n, float* x, cudaStream_t s);
// y[r][c] += bias[c]; ldy is y's row stride.
template <typename T>
void add_bias(T* y, const float* bias, int rows, int n, int ldy, cudaStream_t s);
// x[i] = token_embedding[tokens[i]] + positions[position[i]] for n inputs of width `width`.
template <typename T>
void embed(const int* tokens, const int* position, int n, const T* token_embedding, const float* positions, int width,
           float* x, cudaStream_t s);
// Kernel-3, padding-1 convolution inputs as GEMM rows: columns[t][c*3 + k] = input(c, t*stride - 1 + k),
// zero outside [0, in_len); input(c, t) = in[c * c_stride + t * t_stride]. fp32 in, T out.
template <typename T>
void im2col_k3(const float* in, int channels, int in_len, long c_stride, long t_stride, int stride, int out_len,
               T* columns, cudaStream_t s);
// y[i] = x[i] (+ add[i] when add is not null), converting the storage type: fp32 <-> T.
template <typename From, typename To>
void convert(const From* x, const float* add, long count, To* y, cudaStream_t s);

// A decode step's products, for at most kGemvMaxRows rows, where cuBLAS's tiles leave most of a small
// matrix's time to latency: one warp per output column o, every row taking the same weights.
//   y[r][o] = sum_i x[r][i] w[o][i] (+ bias[o], then exact GELU when gelu_after)
// w is row-major [out][in]; in and ldx are multiples of 8. So that a step needs fewer kernels, what
// sits on either side of a projection can run inside it:
//  - the layer norm before it: with normed_from set, x[r] is layer_norm(normed_from[r]) with gamma,
//    beta and eps ([rows][in], the fp32 residual stream), rounded to T as layer_norm() writes it;
//  - the residual add after it: with residual set, residual[r][o] ([rows][out]) += the product
//    rounded to T + bias[o], as residual_layer_norm() adds a projection, instead of writing y;
//  - the cache write after a fused Q|K|V projection (out = 3 * width): with k_cache set, its K and
//    V columns, rounded to T plus their part of cache_bias (when not null), also go to the caches,
//    as append_kv() writes them. y (no bias: Q's is the attention's) is written too.
// Y is T, or float for the logits.
constexpr int kGemvMaxRows = 8;
template <typename T, typename Y = T>
struct Gemv {
  int rows = 0, in = 0, out = 0;
  const T* w = nullptr;
  const T* x = nullptr;
  int ldx = 0;
  const float* normed_from = nullptr;
  const float* gamma = nullptr;
  const float* beta = nullptr;
  float eps = 1e-5f;
  const float* bias = nullptr;
  bool gelu_after = false;
  Y* y = nullptr;
  int ldy = 0;
  float* residual = nullptr;
  T* k_cache = nullptr;  // [max_rows][capacity][width], as append_kv()
  T* v_cache = nullptr;
  const float* cache_bias = nullptr;  // [3 * width]
  const int* cache_rows = nullptr;    // input r goes to cache row cache_rows[r], position positions[r]
  const int* positions = nullptr;
  int capacity = 0;
};
template <typename T, typename Y>
void gemv(const Gemv<T, Y>& g, cudaStream_t s);

// Row softmax of fp32 scores, scale applied first, written as T for the next GEMM. With
// causal_offset >= 0 row r (of rows_per_head rows per head) sees columns c <= r % rows_per_head +
// causal_offset, the others get probability 0.
template <typename T>
void softmax_rows(const float* scores, int rows, int n, float scale, T* probabilities, cudaStream_t s,
                  int rows_per_head = 1, int causal_offset = -1);

// The encoder's self-attention, softmax(Q K^T * scale) V per head, in one kernel that never writes
// the scores (flash attention): qkv [n][3 * heads * 64] is the fused projection's output, biases
// added, Q, K and V at column 0, heads*64 and 2*heads*64; out [n][heads * 64] (row stride ldo).
// fp16 and bf16 only (tensor cores). The engine runs it only with --fused-encoder-attention until a
// GPU has measured it faster than the cuBLAS products around softmax_rows.
template <typename T>
void encoder_attention(const T* qkv, int n, int heads, float scale, T* out, int ldo, cudaStream_t s);

// Writes each input row's K and V (from the fused QKV output: K at column width, V at 2*width, row
// stride ld), plus their biases when `bias` ([3*width], Q's first) is not null, into the
// self-attention cache: input i goes to cache row rows[i], position positions[i].
// Cache layout per layer: [max_rows][capacity][width].
template <typename T>
void append_kv(const T* qkv, int n, int ld, int width, const float* bias, const int* rows, const int* positions,
               T* k_cache, T* v_cache, int capacity, cudaStream_t s);

// Attention of one query per row over a K/V cache, row r reading only the first n_kv[r] keys (the
// lengths live on the device, so a captured graph replays with the caches' current lengths, and the
// rows of several windows, each at its own length, share one launch). Keys at or past n_visible[r]
// are read but masked (the benchmark's full-cache ablation; otherwise n_visible is n_kv).
// q_bias, when not null, is added to q first (rounded to T, as a separate bias add would leave it).
//  - self-attention: q [rows][heads*64] (row stride ldq); keys and values [cache rows][capacity]
//    [heads*64], row r reading cache row sources[r] (sources null: row r); one block per (head, row)
//  - cross-attention (shared_kv): keys and values [windows][heads][capacity][64], row r reading
//    window sources[r] (window_stride elements apart; sources null: window 0 for every row); the keys
//    split over blocks (flash-decoding) whose partial softmax sums the last block to finish combines
// out [rows][heads*64] (row stride ldo). d_head is 64 in every Whisper model.
struct DecodeAttentionShape {
  int rows;
  int heads;
  int capacity;   // keys the cache holds room for (448 self, 1500 cross): fixes the grid
  bool shared_kv;
  long window_stride = 0;
};
template <typename T>
void decode_attention(const T* q, int ldq, const float* q_bias, const T* k, const T* v, const int* n_kv,
                      const int* n_visible, const int* sources, const DecodeAttentionShape& shape, float* scratch,
                      int* tickets, T* out, int ldo, cudaStream_t s);
// Floats of `scratch` (the splits' partial sums) and ints of `tickets` (a counter per row and head,
// indexed alike for every shape) decode_attention needs for a shape and any smaller one. The tickets
// must be zeroed once before their first use; each launch leaves them at 0.
long decode_attention_scratch(const DecodeAttentionShape& shape);
long decode_attention_tickets(const DecodeAttentionShape& shape);

// The cross K/V projection's output [n_ctx][layers][K|V][heads][64] regrouped head by head into
// [layers][K|V][heads][n_ctx][64], the layout decode_attention reads with shared_kv.
template <typename T>
void regroup_heads(const T* projected, int n_ctx, int blocks, T* cache, cudaStream_t s);

// Copies the first `length` positions of cache rows: dst row i <- src row source_rows[i] (beam
// reordering gathers into `scratch`, then copies back).
template <typename T>
void gather_cache_rows(const T* src, T* dst, const int* source_rows, int rows, int length, int capacity, int width,
                       cudaStream_t s);

// A decode step's tail, the logit filters and the choice (decoding/step_rules.h, step_proposals.h) as
// fixed-size arrays, so that a captured step reads them from one device address.
constexpr int kStepTailMaxRows = 64;  // every row of a step (the engine's largest bucket)
constexpr int kStepTailMaxRanges = 8;
constexpr int kStepTailMaxMaskedTokens = 512;
constexpr int kStepTailMaxK = 17;  // beam search's beam_size + 1, for beams of up to 16
struct StepTailInputs {
  int masked_tokens[kStepTailMaxMaskedTokens];  // -inf in every row
  int n_masked_tokens;
  int ranges[kStepTailMaxRows][kStepTailMaxRanges][2];  // -inf over [begin, end) of one row (any ints)
  int n_ranges[kStepTailMaxRows];
  int timestamp_begin;  // openai's timestamp rule after the masks; -1: none
  int argmax;           // 1: the argmax of the logits (greedy); 0: the k best log-probabilities
  int k;
};

// One block a row of fp32 logits [rows x n_vocab]: the masks into `masked` (the logits stay), the
// timestamp rule, log-softmax, and the row's k best tokens with their log-probabilities into
// tokens/logprobs [rows x k], best first, equal values lower index first.
void step_tail(const float* logits, int rows, int n_vocab, const StepTailInputs* in, float* masked, int* tokens,
               float* logprobs, cudaStream_t s);

}  // namespace auris::cuda
