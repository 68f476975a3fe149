// A decode step's tail on the device (kernels.h, step_tail): one block a row.
#include <climits>

#include "kernels/cuda/kernels.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/numeric.cuh"

namespace auris::cuda {

namespace {

constexpr int kThreads = 512;

__device__ __forceinline__ double block_sum_double(double x, double* shared32) {
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffffu, x, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0) shared32[warp] = x;
  __syncthreads();
  x = lane < kThreads / 32 ? shared32[lane] : 0.0;
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

// Whether (v, i) goes before (w, j): the larger value, the lower index among equal ones; NaN (every
// log-probability of a row the filters masked whole) after every number, as the host's top_k ranks it,
// and index INT_MAX (a thread or warp with no candidate left) after everything, NaN included.
__device__ __forceinline__ bool before(float v, int i, float w, int j) {
  if (i == INT_MAX || j == INT_MAX) return i != INT_MAX && j == INT_MAX;
  const bool v_nan = isnan(v), w_nan = isnan(w);
  if (v_nan || w_nan) return v_nan && w_nan ? i < j : w_nan;
  return v > w || (v == w && i < j);
}

// The block's best (value, index); every thread gets it.
__device__ __forceinline__ void block_best(float& v, int& i, float* values32, int* indices32) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float ov = __shfl_xor_sync(0xffffffffu, v, offset);
    const int oi = __shfl_xor_sync(0xffffffffu, i, offset);
    if (before(ov, oi, v, i)) v = ov, i = oi;
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0) values32[warp] = v, indices32[warp] = i;
  __syncthreads();
  v = lane < kThreads / 32 ? values32[lane] : -INFINITY;
  i = lane < kThreads / 32 ? indices32[lane] : INT_MAX;
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float ov = __shfl_xor_sync(0xffffffffu, v, offset);
    const int oi = __shfl_xor_sync(0xffffffffu, i, offset);
    if (before(ov, oi, v, i)) v = ov, i = oi;
  }
}

__global__ void __launch_bounds__(kThreads) step_tail_kernel(const float* __restrict__ logits, int n,
                                                            const StepTailInputs* __restrict__ in, float* __restrict__ masked,
                                                            int* out_tokens, float* out_logprobs) {
  wait_for_prior_kernels();
  allow_next_kernel();
  __shared__ float values32[32];
  __shared__ int indices32[32];
  __shared__ double sums32[32];
  const int row = blockIdx.x;
  const float* x = logits + static_cast<size_t>(row) * n;
  float* y = masked + static_cast<size_t>(row) * n;

  // The masks: this row's ranges while copying, then every row's tokens.
  const int n_ranges = min(in->n_ranges[row], kStepTailMaxRanges);
  for (int c = threadIdx.x; c < n; c += kThreads) {
    float v = x[c];
    for (int r = 0; r < n_ranges; ++r)
      if (c >= in->ranges[row][r][0] && c < in->ranges[row][r][1]) v = -INFINITY;
    y[c] = v;
  }
  __syncthreads();
  const int n_masked_tokens = min(in->n_masked_tokens, kStepTailMaxMaskedTokens);
  for (int j = threadIdx.x; j < n_masked_tokens; j += kThreads) {
    const int t = in->masked_tokens[j];
    if (t >= 0 && t < n) y[t] = -INFINITY;
  }
  __syncthreads();

  // openai's timestamp rule: the timestamps' log-sum-exp against the best text logit (the common
  // normaliser cancels), the sum in double as the host computes it.
  const int tb = in->timestamp_begin;
  if (tb >= 0 && tb <= n) {
    float text_max = -INFINITY, stamp_max = -INFINITY;
    for (int c = threadIdx.x; c < n; c += kThreads) {
      if (c < tb) text_max = fmaxf(text_max, y[c]);
      else stamp_max = fmaxf(stamp_max, y[c]);
    }
    text_max = block_max(text_max, values32);
    stamp_max = block_max(stamp_max, values32);
    double stamp_sum = 0.0;
    if (stamp_max > -INFINITY)
      for (int c = tb + threadIdx.x; c < n; c += kThreads) stamp_sum += expf(y[c] - stamp_max);
    stamp_sum = block_sum_double(stamp_sum, sums32);
    const double stamp_logsum = stamp_max > -INFINITY ? stamp_max + log(stamp_sum) : -INFINITY;
    if (stamp_logsum > static_cast<double>(text_max))
      for (int c = threadIdx.x; c < tb; c += kThreads) y[c] = -INFINITY;
    __syncthreads();
  }

  // log_softmax's normaliser, as the host's: the max, exponentials in float, their sum in double.
  float m = -INFINITY;
  for (int c = threadIdx.x; c < n; c += kThreads) m = fmaxf(m, y[c]);
  m = block_max(m, values32);
  double sum = 0.0;
  for (int c = threadIdx.x; c < n; c += kThreads) sum += expf(y[c] - m);
  const float log_sum = static_cast<float>(log(block_sum_double(sum, sums32)));

  // Each thread's k best of its columns (they arrive in increasing order, so an equal value never
  // goes before one already kept), then k rounds of the block's best among the threads' heads.
  const bool argmax = in->argmax != 0;
  const int k = argmax ? 1 : min(min(max(in->k, 1), kStepTailMaxK), n);  // the host's k, at most n_vocab
  float best_v[kStepTailMaxK];
  int best_i[kStepTailMaxK];
  int kept = 0;
  for (int c = threadIdx.x; c < n; c += kThreads) {
    // Greedy ranks the logits themselves (openai's argmax); beams the log-probabilities.
    const float v = argmax ? y[c] : (y[c] - m) - log_sum;
    if (kept == k && !(v > best_v[k - 1])) continue;
    int at = kept < k ? kept++ : k - 1;
    while (at > 0 && v > best_v[at - 1]) {
      best_v[at] = best_v[at - 1], best_i[at] = best_i[at - 1];
      --at;
    }
    best_v[at] = v, best_i[at] = c;
  }
  int head = 0;
  for (int r = 0; r < k; ++r) {
    float v = head < kept ? best_v[head] : -INFINITY;
    int i = head < kept ? best_i[head] : INT_MAX;
    const int mine = i;
    block_best(v, i, values32, indices32);
    if (i == mine && head < kept) ++head;
    if (threadIdx.x == 0) {
      const int token = i < n ? i : 0;
      out_tokens[row * k + r] = token;
      out_logprobs[row * k + r] = (y[token] - m) - log_sum;
    }
  }
}

}  // namespace

void step_tail(const float* logits, int rows, int n_vocab, const StepTailInputs* in, float* masked, int* tokens,
               float* logprobs, cudaStream_t s) {
  if (rows) launch(step_tail_kernel, rows, kThreads, s, logits, n_vocab, in, masked, tokens, logprobs);
}

}  // namespace auris::cuda
