#include "kernels/cpu/streaming_product.h"

#include <omp.h>
#include <algorithm>
#include <cmath>

#include "kernels/cpu/dispatched_kernels.h"
#include "kernels/cpu/row_panel_product.h"
#include "model/half_float.h"
#include "util/huge_pages.h"
#include "kernels/cpu/simd.h"  // last: it enables the path's instructions

namespace auris::AURIS_CPU_PATH {

namespace {

constexpr int L = simd::kLanes;
// Below this many weights one thread streams faster than two can start.
constexpr long kParallelWeights = 1 << 16;
// Input rows sharing one pass over a weight row (register blocking: 8 accumulators).
constexpr int kRowBlock = 8;
// How far ahead a pass over weight columns requests the columns a later pass reads: every cache line
// of them at once, when the pass starts. Requests spread over the pass, one per line read, left the
// memory idle while the FMAs ran, so that a pass took about the time of its reads plus that of its
// arithmetic; the hardware prefetcher alone did the same (docs/benchmarks/cpu-kernels.md,
// "Weights requested a pass at a time").
constexpr long kRequestAheadBytes = 8192;
// Bytes of weights a column block may take so that it stays in L2 while row blocks pass over it.
constexpr long kColumnBlockBytes = 192 << 10;

// p is where the pass about to run starts. Requests every cache line of the pass that starts a whole
// number of passes later (at least one, about kRequestAheadBytes). Those lines may lie past the end
// of the weights (passes past the last): their addresses are computed as integers, not as pointers
// into the weights, and a prefetch never faults.
inline void request_pass_ahead(const void* p, long pass_bytes) {
  const long ahead = std::max(1L, kRequestAheadBytes / pass_bytes) * pass_bytes;
  const uintptr_t first = reinterpret_cast<uintptr_t>(p) + static_cast<uintptr_t>(ahead);
  for (long b = 0; b < pass_bytes; b += 64) __builtin_prefetch(reinterpret_cast<const void*>(first + b));
}

// One weight format: a vector of fp32 weights of column `col` from input i, the same for one
// weight, and the address of the column's first weight.
struct Fp32Weights {
  static constexpr int kBytes = 4;
  const float* w;
  int in;
  simd::Vec load(int col, int i) const { return simd::load(w + static_cast<size_t>(col) * in + i); }
  float scalar(int col, int i) const { return w[static_cast<size_t>(col) * in + i]; }
  const void* column(int col) const { return w + static_cast<size_t>(col) * in; }
};

struct Fp16Weights {
  static constexpr int kBytes = 2;
  const uint16_t* w;
  int in;
  simd::Vec load(int col, int i) const { return simd::load_fp16(w + static_cast<size_t>(col) * in + i); }
  float scalar(int col, int i) const { return fp16_to_float(w[static_cast<size_t>(col) * in + i]); }
  const void* column(int col) const { return w + static_cast<size_t>(col) * in; }
};

struct Bf16Weights {
  static constexpr int kBytes = 2;
  const uint16_t* w;
  int in;
  simd::Vec load(int col, int i) const { return simd::load_bf16(w + static_cast<size_t>(col) * in + i); }
  float scalar(int col, int i) const { return bf16_to_float(w[static_cast<size_t>(col) * in + i]); }
  const void* column(int col) const { return w + static_cast<size_t>(col) * in; }
};

// sums[r] = <x row r, weight column col> for R rows. U independent accumulators per row hide the FMA
// latency when there are few rows.
template <int R, typename Weights>
inline void dot_rows(const float* x, int ldx, int in, const Weights& w, int col, float* sums) {
  constexpr int U = R <= 3 ? 4 : (R <= 7 ? 2 : 1);
  request_pass_ahead(w.column(col), static_cast<long>(in) * Weights::kBytes);
  simd::Vec acc[R][U];
  for (int r = 0; r < R; ++r)
    for (int u = 0; u < U; ++u) acc[r][u] = simd::zero();
  int i = 0;
  for (; i + U * L <= in; i += U * L) {
    for (int u = 0; u < U; ++u) {
      const simd::Vec wv = w.load(col, i + u * L);
      for (int r = 0; r < R; ++r) acc[r][u] = simd::fmadd(wv, simd::load(x + static_cast<size_t>(r) * ldx + i + u * L), acc[r][u]);
    }
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

// Adjacent weight columns one pass of dot_columns takes for R rows: R*C accumulators, C weight
// vectors and one vector of x within the 16 registers. One row keeps dot_rows, which streams at the
// bandwidth floor; 7 and 8 rows leave no registers for a second column.
constexpr int columns_per_pass(int rows) { return rows == 1 || rows > 6 ? 1 : (rows == 2 ? 4 : (rows == 3 ? 3 : 2)); }

// sums[c * R + r] = <x row r, weight column col + c> for R rows and C adjacent columns. Each vector of
// x goes into a register once and feeds C FMAs, one per column. dot_rows, one column at a time, loads
// an x vector for every FMA (five rows: six loads per five FMAs), so the loads, not the FMAs, bound
// a beam step's products (docs/benchmarks/cpu-kernels.md, "weight rows two at a time").
template <int R, int C, typename Weights>
inline void dot_columns(const float* x, int ldx, int in, const Weights& w, int col, float* sums) {
  request_pass_ahead(w.column(col), static_cast<long>(C) * in * Weights::kBytes);
  simd::Vec acc[C][R];
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < R; ++r) acc[c][r] = simd::zero();
  int i = 0;
  for (; i + L <= in; i += L) {
    simd::Vec wv[C];
    for (int c = 0; c < C; ++c) wv[c] = w.load(col + c, i);
    for (int r = 0; r < R; ++r) {
      const simd::Vec xv = simd::load_to_register(x + static_cast<size_t>(r) * ldx + i);
      for (int c = 0; c < C; ++c) acc[c][r] = simd::fmadd(wv[c], xv, acc[c][r]);
    }
  }
  for (int c = 0; c < C; ++c)
    for (int r = 0; r < R; ++r) sums[c * R + r] = simd::reduce_add(acc[c][r]);
  for (; i < in; ++i)
    for (int c = 0; c < C; ++c) {
      const float wv = w.scalar(col + c, i);
      for (int r = 0; r < R; ++r) sums[c * R + r] += wv * x[static_cast<size_t>(r) * ldx + i];
    }
}

// Rows [r0, r0 + R) of output columns [c0, c1): columns_per_pass(R) columns at a time, the rest one
// by one.
template <int R, typename Weights>
void columns_times_rows(const float* x, int ldx, int in, const Weights& w, int c0, int c1, int r0,
                        const StreamingOutput& o) {
  constexpr int C = columns_per_pass(R);
  float sums[C * R];
  auto write = [&](int col, int columns) {
    for (int c = 0; c < columns; ++c) {
      const float bias = o.bias ? o.bias[col + c] : 0.0f;
      for (int r = 0; r < R; ++r) o.y[static_cast<size_t>(r0 + r) * o.ldy + col + c] = sums[c * R + r] + bias;
    }
  };
  int col = c0;
  if constexpr (C > 1) {
    for (; col + C <= c1; col += C) {
      dot_columns<R, C>(x, ldx, in, w, col, sums);
      write(col, C);
    }
  }
  for (; col < c1; ++col) {
    dot_rows<R>(x, ldx, in, w, col, sums);
    write(col, 1);
  }
}

template <typename Weights>
void columns_times_rows(const float* x, int nr, int ldx, int in, const Weights& w, int c0, int c1, int r0,
                        const StreamingOutput& o) {
  switch (nr) {
    case 1: return columns_times_rows<1>(x, ldx, in, w, c0, c1, r0, o);
    case 2: return columns_times_rows<2>(x, ldx, in, w, c0, c1, r0, o);
    case 3: return columns_times_rows<3>(x, ldx, in, w, c0, c1, r0, o);
    case 4: return columns_times_rows<4>(x, ldx, in, w, c0, c1, r0, o);
    case 5: return columns_times_rows<5>(x, ldx, in, w, c0, c1, r0, o);
    case 6: return columns_times_rows<6>(x, ldx, in, w, c0, c1, r0, o);
    case 7: return columns_times_rows<7>(x, ldx, in, w, c0, c1, r0, o);
    default: return columns_times_rows<8>(x, ldx, in, w, c0, c1, r0, o);
  }
}

// Splits the output columns over the threads and walks the input rows in blocks of kRowBlock:
// block(r0, nr, c0, c1) computes rows [r0, r0 + nr) of columns [c0, c1).
template <typename Block>
void for_column_blocks(int rows, int in, int out, int bytes_per_weight, const Block& block) {
  if (rows <= 0 || out <= 0) return;
  const bool parallel = static_cast<long>(out) * in >= kParallelWeights;
  const int threads = parallel ? omp_get_max_threads() : 1;
  // One column range per thread for a decode step; for more rows, ranges that fit in L2, so each
  // block of 8 rows finds the weights there.
  int blocks = threads;
  if (rows > kRowBlock) {
    const long cols_in_l2 = std::max(1L, kColumnBlockBytes / (static_cast<long>(in) * bytes_per_weight));
    blocks = threads * static_cast<int>((out / threads + cols_in_l2) / cols_in_l2);
  }
  blocks = std::min(blocks, out);
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
  for (int b = 0; b < blocks; ++b) {
    const int c0 = static_cast<int>(static_cast<long>(out) * b / blocks);
    const int c1 = static_cast<int>(static_cast<long>(out) * (b + 1) / blocks);
    for (int r0 = 0; r0 < rows; r0 += kRowBlock) block(r0, std::min(kRowBlock, rows - r0), c0, c1);
  }
}

template <typename Weights>
void stream_rows(const float* x, int rows, int ldx, int in, int out, const StreamingOutput& o, const Weights& w) {
  for_column_blocks(rows, in, out, Weights::kBytes, [&](int r0, int nr, int c0, int c1) {
    columns_times_rows(x + static_cast<size_t>(r0) * ldx, nr, ldx, in, w, c0, c1, r0, o);
  });
}

// sums[r] = <int16 activations of row r, int8 weight column> for R rows (row stride `in`).
// One row (a greedy step) takes a cache line of weights per pass, into four accumulators. Without
// the request ahead a greedy step's int8 products read well below the bandwidth floor
// (docs/benchmarks/cpu-kernels.md, "int8 greedy products prefetched").
template <int R>
inline void int_dot_rows(const int16_t* q, int in, const int8_t* w, int32_t* sums) {
  constexpr int L16 = simd::kInt16Lanes;
  constexpr int U = R == 1 ? 4 : 1;
  request_pass_ahead(w, in);
  simd::IntVec acc[R][U];
  for (int r = 0; r < R; ++r)
    for (int u = 0; u < U; ++u) acc[r][u] = simd::int_zero();
  int i = 0;
  if constexpr (R == 1) {
    for (; i + U * L16 <= in; i += U * L16) {
      for (int u = 0; u < U; ++u)
        acc[0][u] = simd::multiply_add_pairs(acc[0][u], simd::load_int8_as_int16(w + i + u * L16), simd::load_int16(q + i + u * L16));
    }
  }
  for (; i + L16 <= in; i += L16) {
    const simd::IntVec wv = simd::load_int8_as_int16(w + i);
    for (int r = 0; r < R; ++r) acc[r][0] = simd::multiply_add_pairs(acc[r][0], wv, simd::load_int16(q + static_cast<size_t>(r) * in + i));
  }
  for (int r = 0; r < R; ++r) {
    for (int u = 1; u < U; ++u) acc[r][0] = simd::int_add(acc[r][0], acc[r][u]);
    sums[r] = simd::reduce_add(acc[r][0]);
  }
  for (; i < in; ++i)
    for (int r = 0; r < R; ++r) sums[r] += static_cast<int32_t>(w[i]) * q[static_cast<size_t>(r) * in + i];
}

}  // namespace

void stream_product_f32(const float* x, int rows, int ldx, const float* w, int in, int out, const StreamingOutput& o) {
  stream_rows(x, rows, ldx, in, out, o, Fp32Weights{w, in});
}

void half_product_by_row_blocks(const float* x, int rows, int ldx, const uint16_t* w, bool bf16, int in, int out,
                                const StreamingOutput& o) {
  if (bf16) return stream_rows(x, rows, ldx, in, out, o, Bf16Weights{w, in});
  stream_rows(x, rows, ldx, in, out, o, Fp16Weights{w, in});
}

int half_row_panel_rows() { return kHalfRowPanelRows; }

void stream_product_f16(const float* x, int rows, int ldx, const uint16_t* w, int in, int out,
                        const StreamingOutput& o) {
  // Qualified: StreamingOutput would bring in the dispatching auris:: functions of the same name.
  if (rows >= kHalfRowPanelRows) return AURIS_CPU_PATH::half_product_by_row_panels(x, rows, ldx, w, /*bf16=*/false, in, out, o);
  AURIS_CPU_PATH::half_product_by_row_blocks(x, rows, ldx, w, /*bf16=*/false, in, out, o);
}

void stream_product_bf16(const float* x, int rows, int ldx, const uint16_t* w, int in, int out,
                         const StreamingOutput& o) {
  if (rows >= kHalfRowPanelRows) return AURIS_CPU_PATH::half_product_by_row_panels(x, rows, ldx, w, /*bf16=*/true, in, out, o);
  AURIS_CPU_PATH::half_product_by_row_blocks(x, rows, ldx, w, /*bf16=*/true, in, out, o);
}

Int8Rows quantize_int8_rows(const float* w, int out, int in) {
  Int8Rows q;
  resize_on_huge_pages(q.values, static_cast<size_t>(out) * in);
  q.scales.resize(out);
#pragma omp parallel for schedule(static)  // at load: each column on its own
  for (int col = 0; col < out; ++col) {
    const float* wr = w + static_cast<size_t>(col) * in;
    const float max_abs = [&] {  // NaN left out, as std::max(max_abs, NaN) leaves it
      constexpr int L = simd::kLanes;
      simd::Vec lanes = simd::zero();
      int i = 0;
      for (; i + L <= in; i += L) lanes = simd::max(simd::abs(simd::load(wr + i)), lanes);
      float largest = simd::reduce_max(lanes);
      for (; i < in; ++i) largest = std::max(largest, std::fabs(wr[i]));
      return largest;
    }();
    const float scale = max_abs > 0.0f ? max_abs / 127.0f : 1.0f;
    int8_t* qr = q.values.data() + static_cast<size_t>(col) * in;
    for (int i = 0; i < in; ++i) {  // lround's half away from zero, in a loop the compiler vectorises
      const float r = wr[i] / scale;
      const int toward_zero = static_cast<int>(r);
      const float fraction = r - static_cast<float>(toward_zero);  // exact
      const int rounded = toward_zero + (fraction >= 0.5f) - (fraction <= -0.5f);
      qr[i] = static_cast<int8_t>(std::clamp(rounded, -127, 127));
    }
    q.scales[col] = scale;
  }
  return q;
}

void stream_product_int8(const float* x, int rows, int ldx, const Int8Rows& w, int in, int out,
                         const StreamingOutput& o) {
  // Activations to int16 with one scale per input row, |q| <= 16383, so pmaddwd's pair sums (at most
  // 2 * 127 * 16383) fit. The whole sum is bounded within int32 only up to 1,032 inputs; past that it
  // relies on a row's values not all being near its largest, as a model's activations are not. The
  // rounding, 1/32766 of the row's largest value, is far below the weights' (1/254 of theirs).
  thread_local std::vector<int16_t> xq;
  thread_local std::vector<float> x_scales;
  xq.resize(static_cast<size_t>(rows) * in);
  x_scales.resize(rows);
  for (int r = 0; r < rows; ++r)
    x_scales[r] = quantize_row_int16(x + static_cast<size_t>(r) * ldx, in, xq.data() + static_cast<size_t>(r) * in);
  const int16_t* q = xq.data();
  const float* qs = x_scales.data();
  if (rows >= kRowPanelRows) return int8_product_by_row_panels(q, qs, rows, w, in, out, o);
  for_column_blocks(rows, in, out, 1, [&](int r0, int nr, int c0, int c1) {
    int32_t sums[kRowBlock];
    for (int col = c0; col < c1; ++col) {
      const int8_t* wc = w.values.data() + static_cast<size_t>(col) * in;
      const int16_t* qb = q + static_cast<size_t>(r0) * in;
      switch (nr) {
        case 1: int_dot_rows<1>(qb, in, wc, sums); break;
        case 2: int_dot_rows<2>(qb, in, wc, sums); break;
        case 3: int_dot_rows<3>(qb, in, wc, sums); break;
        case 4: int_dot_rows<4>(qb, in, wc, sums); break;
        case 5: int_dot_rows<5>(qb, in, wc, sums); break;
        case 6: int_dot_rows<6>(qb, in, wc, sums); break;
        case 7: int_dot_rows<7>(qb, in, wc, sums); break;
        default: int_dot_rows<8>(qb, in, wc, sums); break;
      }
      const float bias = o.bias ? o.bias[col] : 0.0f;
      for (int r = 0; r < nr; ++r)
        o.y[static_cast<size_t>(r0 + r) * o.ldy + col] = int8_product_output(sums[r], qs[r0 + r], w.scales[col], bias);
    }
  });
}

}  // namespace auris::AURIS_CPU_PATH
