// Element-wise and row-wise kernels of the transformer blocks.
#pragma once

namespace auris {

// y = (x - mean) / sqrt(var + eps) * gamma + beta over each row of width n (in place allowed).
void layer_norm(const float* x, int rows, int n, const float* gamma, const float* beta, float* y,
                float eps = 1e-5f);
// Exact (erf) GELU, as torch.nn.GELU(), in place.
void gelu_inplace(float* x, long count);
// y += x
void add_inplace(float* y, const float* x, long count);
// Softmax of one row in place; entries that are -inf stay 0. Returns log(sum(exp(x))) of the row as
// it was, which merges softmaxes over parts of a row (attention over a shared prefix and a suffix).
double softmax_inplace(float* x, int n);

// A row's largest value and the sum of exp(x - max) over it.
struct ExpSum {
  float max;
  double sum;
};
// Softmax without its last pass: x[j] = exp(x[j] - max), left unnormalised. Attention divides its
// weighted sums by the row's sum instead (d_head values where softmax would scale every key's weight).
ExpSum exp_from_max_inplace(float* x, int n);

// The largest of n values (-inf for none).
float max_value(const float* x, long n);
// The index of the first of the largest values, as torch.argmax gives it (0 for n == 0).
long argmax(const float* x, long n);

}  // namespace auris
