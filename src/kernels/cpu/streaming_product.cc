#include "kernels/cpu/streaming_product.h"

#include <omp.h>

#include <algorithm>
#include <cmath>

#include "kernels/cpu/simd.h"
#include "model/half_float.h"

namespace auris {

namespace {

constexpr int L = simd::kLanes;
// Below this many weights one thread streams faster than two can start.
constexpr long kParallelWeights = 1 << 16;
// Input rows sharing one pass over a weight row (register blocking: 8 accumulators).
constexpr int kRowBlock = 8;
// Bytes of weights a column block may take so that it stays in L2 while row blocks pass over it.
constexpr long kColumnBlockBytes = 192 << 10;

// One weight format: a vector of fp32 weights of column `col` from input i, the same for one weight,
// and the factor the column's sums are multiplied by (int8's scale).
struct Fp32Weights {
  static constexpr int kBytes = 4;
  const float* w;
  int in;
  simd::Vec load(int col, int i) const { return simd::load(w + static_cast<size_t>(col) * in + i); }
  float scalar(int col, int i) const { return w[static_cast<size_t>(col) * in + i]; }
  float scale(int) const { return 1.0f; }
};

struct Fp16Weights {
  static constexpr int kBytes = 2;
  const uint16_t* w;
  int in;
  simd::Vec load(int col, int i) const { return simd::load_fp16(w + static_cast<size_t>(col) * in + i); }
  float scalar(int col, int i) const { return fp16_to_float(w[static_cast<size_t>(col) * in + i]); }
  float scale(int) const { return 1.0f; }
};

struct Bf16Weights {
  static constexpr int kBytes = 2;
  const uint16_t* w;
  int in;
  simd::Vec load(int col, int i) const { return simd::load_bf16(w + static_cast<size_t>(col) * in + i); }
  float scalar(int col, int i) const { return bf16_to_float(w[static_cast<size_t>(col) * in + i]); }
  float scale(int) const { return 1.0f; }
};

struct Int8Weights {
  static constexpr int kBytes = 1;
  const Int8Rows& w;
  int in;
  simd::Vec load(int col, int i) const { return simd::load_int8(w.values.data() + static_cast<size_t>(col) * in + i); }
  float scalar(int col, int i) const { return w.values[static_cast<size_t>(col) * in + i]; }
  float scale(int col) const { return w.scales[col]; }
};

// sums[r] = <x row r, weight column col> for R rows. U independent accumulators per row hide the FMA
// latency when there are few rows.
template <int R, typename Weights>
inline void dot_rows(const float* x, int ldx, int in, const Weights& w, int col, float* sums) {
  constexpr int U = R == 1 ? 4 : (R <= 4 ? 2 : 1);
  simd::Vec acc[R][U];
  for (int r = 0; r < R; ++r)
    for (int u = 0; u < U; ++u) acc[r][u] = simd::zero();
  int i = 0;
  for (; i + U * L <= in; i += U * L)
    for (int u = 0; u < U; ++u) {
      const simd::Vec wv = w.load(col, i + u * L);
      for (int r = 0; r < R; ++r) acc[r][u] = simd::fmadd(wv, simd::load(x + static_cast<size_t>(r) * ldx + i + u * L), acc[r][u]);
    }
  for (; i + L <= in; i += L) {
    const simd::Vec wv = w.load(col, i);
    for (int r = 0; r < R; ++r) acc[r][0] = simd::fmadd(wv, simd::load(x + static_cast<size_t>(r) * ldx + i), acc[r][0]);
  }
  for (int r = 0; r < R; ++r) {
    for (int u = 1; u < U; ++u) acc[r][0] = simd::add(acc[r][0], acc[r][u]);
    sums[r] = simd::reduce_add(acc[r][0]);
  }
  for (; i < in; ++i) {
    const float wv = w.scalar(col, i);
    for (int r = 0; r < R; ++r) sums[r] += wv * x[static_cast<size_t>(r) * ldx + i];
  }
}

template <typename Weights>
void columns_times_rows(const float* x, int nr, int ldx, int in, const Weights& w, int c0, int c1, int r0,
                        const StreamingOutput& o) {
  float sums[kRowBlock];
  for (int col = c0; col < c1; ++col) {
    switch (nr) {
      case 1: dot_rows<1>(x, ldx, in, w, col, sums); break;
      case 2: dot_rows<2>(x, ldx, in, w, col, sums); break;
      case 3: dot_rows<3>(x, ldx, in, w, col, sums); break;
      case 4: dot_rows<4>(x, ldx, in, w, col, sums); break;
      case 5: dot_rows<5>(x, ldx, in, w, col, sums); break;
      case 6: dot_rows<6>(x, ldx, in, w, col, sums); break;
      case 7: dot_rows<7>(x, ldx, in, w, col, sums); break;
      default: dot_rows<8>(x, ldx, in, w, col, sums); break;
    }
    const float scale = w.scale(col);
    const float bias = o.bias ? o.bias[col] : 0.0f;
    for (int r = 0; r < nr; ++r) o.y[static_cast<size_t>(r0 + r) * o.ldy + col] = sums[r] * scale + bias;
  }
}

template <typename Weights>
void stream_rows(const float* x, int rows, int ldx, int in, int out, const StreamingOutput& o, const Weights& w) {
  if (rows <= 0 || out <= 0) return;
  const bool parallel = static_cast<long>(out) * in >= kParallelWeights;
  const int threads = parallel ? omp_get_max_threads() : 1;
  // One column range per thread for a decode step; for more rows, ranges that fit in L2, so each
  // block of 8 rows finds the weights there.
  int blocks = threads;
  if (rows > kRowBlock) {
    const long cols_in_l2 = std::max(1L, kColumnBlockBytes / (static_cast<long>(in) * Weights::kBytes));
    blocks = threads * static_cast<int>((out / threads + cols_in_l2) / cols_in_l2);
  }
  blocks = std::min(blocks, out);
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
  for (int b = 0; b < blocks; ++b) {
    const int c0 = static_cast<int>(static_cast<long>(out) * b / blocks);
    const int c1 = static_cast<int>(static_cast<long>(out) * (b + 1) / blocks);
    for (int r0 = 0; r0 < rows; r0 += kRowBlock)
      columns_times_rows(x + static_cast<size_t>(r0) * ldx, std::min(kRowBlock, rows - r0), ldx, in, w, c0, c1, r0, o);
  }
}

}  // namespace

void stream_product_f32(const float* x, int rows, int ldx, const float* w, int in, int out, const StreamingOutput& o) {
  stream_rows(x, rows, ldx, in, out, o, Fp32Weights{w, in});
}

void stream_product_f16(const float* x, int rows, int ldx, const uint16_t* w, int in, int out,
                        const StreamingOutput& o) {
  stream_rows(x, rows, ldx, in, out, o, Fp16Weights{w, in});
}

void stream_product_bf16(const float* x, int rows, int ldx, const uint16_t* w, int in, int out,
                         const StreamingOutput& o) {
  stream_rows(x, rows, ldx, in, out, o, Bf16Weights{w, in});
}

Int8Rows quantize_int8_rows(const float* w, int out, int in) {
  Int8Rows q;
  q.values.resize(static_cast<size_t>(out) * in);
  q.scales.resize(out);
  for (int col = 0; col < out; ++col) {
    const float* wr = w + static_cast<size_t>(col) * in;
    float max_abs = 0.0f;
    for (int i = 0; i < in; ++i) max_abs = std::max(max_abs, std::fabs(wr[i]));
    const float scale = max_abs > 0.0f ? max_abs / 127.0f : 1.0f;
    for (int i = 0; i < in; ++i)
      q.values[static_cast<size_t>(col) * in + i] =
          static_cast<int8_t>(std::clamp(static_cast<int>(std::lround(wr[i] / scale)), -127, 127));
    q.scales[col] = scale;
  }
  return q;
}

void stream_product_int8(const float* x, int rows, int ldx, const Int8Rows& w, int in, int out,
                         const StreamingOutput& o) {
  stream_rows(x, rows, ldx, in, out, o, Int8Weights{w, in});
}

}  // namespace auris
