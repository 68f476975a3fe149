// The int8 product over many rows, vectorised across rows rather than along the inputs. The 8-row
// blocks of the decode-step kernel end every output in a horizontal sum per row, and their 8
// accumulators leave no room to reuse a loaded weight vector for a second column; with 30 to 80 rows
// (a batched step) those blocks, not the weight reads, bound the step. Here a vector holds one pair of
// inputs of 16 rows (8 on AVX2), each weight pair is broadcast to all of them, and a tile of
// kColumns columns by two row vectors keeps its sums in registers to the end: no horizontal sums,
// and each loaded activation vector feeds kColumns multiply-adds. On AVX-512 the vectors are 512 bits
// wide (VNNI's vpdpwssd), twice the 256-bit lanes of the streaming kernels, since this product is
// bound by its arithmetic, not by memory.
#include "kernels/cpu/int8_row_panels.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/dispatched_kernels.h"
#include "kernels/cpu/simd.h"  // last: it enables the path's instructions

namespace auris::AURIS_CPU_PATH {

namespace {

// A vector of int32 lanes, one per row; each lane holds a pair of int16 inputs of its row.
#if AURIS_CPU_PATH_LEVEL >= 2
constexpr int kRowLanes = 16;
constexpr int kColumns = 12;  // 24 accumulators and two activation vectors in 32 registers
using RowVec = __m512i;
inline RowVec row_zero() { return _mm512_setzero_si512(); }
inline RowVec row_load(const int32_t* p) { return _mm512_loadu_si512(p); }
inline void row_store(int32_t* p, RowVec v) { _mm512_storeu_si512(p, v); }
// acc + x's pairs times the weight pair at w (two int16), broadcast to every lane.
inline RowVec row_multiply_add(RowVec acc, RowVec x, const int16_t* w) {
  int32_t pair;
  std::memcpy(&pair, w, sizeof pair);
  return _mm512_dpwssd_epi32(acc, x, _mm512_set1_epi32(pair));
}
#elif AURIS_CPU_PATH_LEVEL >= 1
constexpr int kRowLanes = 8;
constexpr int kColumns = 4;  // 8 accumulators, two activation vectors and two temporaries in 16
using RowVec = __m256i;
inline RowVec row_zero() { return _mm256_setzero_si256(); }
inline RowVec row_load(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
inline void row_store(int32_t* p, RowVec v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
inline RowVec row_multiply_add(RowVec acc, RowVec x, const int16_t* w) {
  int32_t pair;
  std::memcpy(&pair, w, sizeof pair);
  return _mm256_add_epi32(acc, _mm256_madd_epi16(x, _mm256_set1_epi32(pair)));
}
#else
constexpr int kRowLanes = 1;
constexpr int kColumns = 4;
using RowVec = int32_t;
inline RowVec row_zero() { return 0; }
inline RowVec row_load(const int32_t* p) { return *p; }
inline void row_store(int32_t* p, RowVec v) { *p = v; }
inline RowVec row_multiply_add(RowVec acc, RowVec x, const int16_t* w) {
  const auto low = static_cast<int16_t>(static_cast<uint32_t>(x) & 0xffff);
  const auto high = static_cast<int16_t>(static_cast<uint32_t>(x) >> 16);
  return acc + low * w[0] + high * w[1];
}
#endif

// Weights of a column block, widened to int16, stay within this many bytes (L2).
constexpr long kColumnBlockBytes = 128 << 10;
// Below this many weights one thread is faster than two.
constexpr long kParallelWeights = 1 << 16;

// The activations as row panels: panel p holds rows [p * kRowLanes, (p + 1) * kRowLanes), and for
// each input pair t one vector of those rows' pairs (q[r][2t], q[r][2t + 1]); rows past the last and
// the odd input past an odd width are zero.
struct RowPanels {
  std::vector<int32_t> pairs;
  int count = 0;  // panels
  int pair_count = 0;
  const int32_t* panel(int p) const { return pairs.data() + static_cast<size_t>(p) * pair_count * kRowLanes; }
};

void fill_row_panels(const int16_t* q, int rows, int in, RowPanels& panels) {
  panels.count = (rows + kRowLanes - 1) / kRowLanes;
  panels.pair_count = (in + 1) / 2;
  panels.pairs.assign(static_cast<size_t>(panels.count) * panels.pair_count * kRowLanes, 0);
  const int whole_pairs = in / 2;
  for (int r = 0; r < rows; ++r) {
    int32_t* dst = panels.pairs.data() + static_cast<size_t>(r / kRowLanes) * panels.pair_count * kRowLanes + r % kRowLanes;
    const int16_t* src = q + static_cast<size_t>(r) * in;
    for (int t = 0; t < whole_pairs; ++t) {  // two int16 in memory order: the low half is the first
      int32_t pair;
      std::memcpy(&pair, src + 2 * t, sizeof pair);
      dst[static_cast<size_t>(t) * kRowLanes] = pair;
    }
    if (in % 2) dst[static_cast<size_t>(whole_pairs) * kRowLanes] = static_cast<uint16_t>(src[in - 1]);
  }
}

// sums[c][v * kRowLanes + lane] for C columns (int16 weights, row stride ldw) and V row panels.
template <int V, int C>
void tile(const RowPanels& x, int first_panel, const int16_t* w, int ldw, int32_t* sums) {
  RowVec acc[C][V];
  for (int c = 0; c < C; ++c)
    for (int v = 0; v < V; ++v) acc[c][v] = row_zero();
  const int32_t* panel[V];
  for (int v = 0; v < V; ++v) panel[v] = x.panel(first_panel + v);
  for (int t = 0; t < x.pair_count; ++t) {
    RowVec xv[V];
    for (int v = 0; v < V; ++v) xv[v] = row_load(panel[v] + static_cast<size_t>(t) * kRowLanes);
    for (int c = 0; c < C; ++c) {
      const int16_t* pair = w + static_cast<size_t>(c) * ldw + 2 * t;
      for (int v = 0; v < V; ++v) acc[c][v] = row_multiply_add(acc[c][v], xv[v], pair);
    }
  }
  for (int c = 0; c < C; ++c)
    for (int v = 0; v < V; ++v) row_store(sums + (c * V + v) * kRowLanes, acc[c][v]);
}

// tile() for the n <= kColumns columns left at the end of a block.
template <int V, int C = kColumns>
void tile_of(int n, const RowPanels& x, int first_panel, const int16_t* w, int ldw, int32_t* sums) {
  if constexpr (C > 1) {
    if (n < C) return tile_of<V, C - 1>(n, x, first_panel, w, ldw, sums);
  }
  tile<V, C>(x, first_panel, w, ldw, sums);
}

}  // namespace

void int8_product_by_row_panels(const int16_t* q, const float* q_scales, int rows, const Int8Rows& w, int in,
                                int out, const StreamingOutput& o) {
  if (rows <= 0 || out <= 0) return;
  thread_local RowPanels x;
  fill_row_panels(q, rows, in, x);
  const int ldw = 2 * x.pair_count;  // int16 weights per column, the odd input's pair zero-padded
  const int block_columns =
      std::max(kColumns, static_cast<int>(kColumnBlockBytes / (static_cast<long>(ldw) * 2)) / kColumns * kColumns);
  const int blocks = (out + block_columns - 1) / block_columns;
  const RowPanels& panels = x;  // thread_local: the other threads reach it through this reference
  const bool parallel = static_cast<long>(out) * in >= kParallelWeights;
#pragma omp parallel for schedule(static) if (parallel)
  for (int b = 0; b < blocks; ++b) {
    const int c0 = b * block_columns;
    const int c1 = std::min(out, c0 + block_columns);
    thread_local std::vector<int16_t> wide;
    wide.assign(static_cast<size_t>(c1 - c0) * ldw, 0);
    for (int c = c0; c < c1; ++c) {
      const int8_t* src = w.values.data() + static_cast<size_t>(c) * in;
      int16_t* dst = wide.data() + static_cast<size_t>(c - c0) * ldw;
      for (int i = 0; i < in; ++i) dst[i] = src[i];
    }
    int32_t sums[kColumns * 2 * kRowLanes];
    for (int c = c0; c < c1; c += kColumns) {
      const int n = std::min(kColumns, c1 - c);
      // The next block's weights are requested while this one's arithmetic runs; widening them
      // from memory otherwise leaves the multiply-adds idle.
      if (c + block_columns < out) {
        const int8_t* next = w.values.data() + static_cast<size_t>(c + block_columns) * in;
        const long bytes = static_cast<long>(std::min(kColumns, out - c - block_columns)) * in;
        for (long at = 0; at < bytes; at += 64) __builtin_prefetch(next + at);
      }
      const int16_t* wc = wide.data() + static_cast<size_t>(c - c0) * ldw;
      for (int p = 0; p < panels.count; p += 2) {
        const int v = std::min(2, panels.count - p);
        if (v == 2)
          tile_of<2>(n, panels, p, wc, ldw, sums);
        else
          tile_of<1>(n, panels, p, wc, ldw, sums);
        for (int j = 0; j < n; ++j) {
          const int col = c + j;
          const float bias = o.bias ? o.bias[col] : 0.0f;
          for (int l = 0; l < v * kRowLanes; ++l) {
            const int r = p * kRowLanes + l;
            if (r >= rows) break;
            o.y[static_cast<size_t>(r) * o.ldy + col] = int8_product_output(sums[j * v * kRowLanes + l], q_scales[r], w.scales[col], bias);
          }
        }
      }
    }
  }
}

}  // namespace auris::AURIS_CPU_PATH
