// Products over many rows, vectorised across rows rather than along the inputs. The 8-row blocks of
// the decode-step kernels end every output in a horizontal sum per row, and their 8 accumulators
// leave no room to reuse a loaded weight vector for a second column; with 30 to 80 rows (a batched
// step) those blocks, not the weight reads, bound the step. Here a vector holds one input (int8: one
// pair of inputs) of 16 rows (8 on AVX2), each weight is broadcast to all of them, and a tile of
// kColumns columns by two row vectors keeps its sums in registers to the end: no horizontal sums,
// and each loaded activation vector feeds kColumns multiply-adds. On AVX-512 the vectors are 512 bits
// wide (VNNI's vpdpwssd for int8), twice the 256-bit lanes of the streaming kernels, since these
// products are bound by their arithmetic, not by memory. The weights of a block of columns are
// widened once per call (int8 to int16, fp16/bf16 to fp32) into a buffer that stays in L2.
#include "kernels/cpu/row_panel_product.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/dispatched_kernels.h"
#include "model/half_float.h"
#include "kernels/cpu/simd.h"  // last: it enables the path's instructions

namespace auris::AURIS_CPU_PATH {

namespace {

// The two kinds of product, each over vectors whose lanes are rows. Step: the inputs one
// multiply-add takes from a row (int16 pairs: 2). Lane: what a panel stores per row and step.
#if AURIS_CPU_PATH_LEVEL >= 2
constexpr int kRowLanes = 16;
struct Int16Pairs {
  static constexpr int kColumns = 12;  // 24 accumulators and two activation vectors in 32 registers
  static constexpr int kColumnsOnePanel = kColumns;
  using Acc = __m512i;
  using Lane = int32_t;
  using Weight = int16_t;
  static constexpr int kStep = 2;
  static Acc zero() { return _mm512_setzero_si512(); }
  static Acc load(const Lane* p) { return _mm512_loadu_si512(p); }
  static void store(Lane* p, Acc v) { _mm512_storeu_si512(p, v); }
  // acc + x's pairs times the weight pair at w, broadcast to every lane.
  static Acc multiply_add(Acc acc, Acc x, const Weight* w) {
    int32_t pair;
    std::memcpy(&pair, w, sizeof pair);
    return _mm512_dpwssd_epi32(acc, x, _mm512_set1_epi32(pair));
  }
};
struct Floats {
  static constexpr int kColumns = 12;
  static constexpr int kColumnsOnePanel = kColumns;
  using Acc = __m512;
  using Lane = float;
  using Weight = float;
  static constexpr int kStep = 1;
  static Acc zero() { return _mm512_setzero_ps(); }
  static Acc load(const Lane* p) { return _mm512_loadu_ps(p); }
  static void store(Lane* p, Acc v) { _mm512_storeu_ps(p, v); }
  static Acc multiply_add(Acc acc, Acc x, const Weight* w) { return _mm512_fmadd_ps(x, _mm512_set1_ps(*w), acc); }
};
#elif AURIS_CPU_PATH_LEVEL >= 1
constexpr int kRowLanes = 8;
struct Int16Pairs {
  // 8 accumulators, two activation vectors and the products' temporaries in 16 registers. An
  // accumulator waits only on vpaddd (1 cycle), so 4 of them keep a lone panel busy too.
  static constexpr int kColumns = 4;
  static constexpr int kColumnsOnePanel = kColumns;
  using Acc = __m256i;
  using Lane = int32_t;
  using Weight = int16_t;
  static constexpr int kStep = 2;
  static Acc zero() { return _mm256_setzero_si256(); }
  static Acc load(const Lane* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(Lane* p, Acc v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static Acc multiply_add(Acc acc, Acc x, const Weight* w) {
    int32_t pair;
    std::memcpy(&pair, w, sizeof pair);
    return _mm256_add_epi32(acc, _mm256_madd_epi16(x, _mm256_set1_epi32(pair)));
  }
};
struct Floats {
  // 8 accumulators: the FMAs in flight on two pipes of 4 cycles each. A lone panel (an odd count)
  // takes 12 columns, or its 4 accumulators would leave half of those slots empty.
  static constexpr int kColumns = 4;
  static constexpr int kColumnsOnePanel = 12;
  using Acc = __m256;
  using Lane = float;
  using Weight = float;
  static constexpr int kStep = 1;
  static Acc zero() { return _mm256_setzero_ps(); }
  static Acc load(const Lane* p) { return _mm256_loadu_ps(p); }
  static void store(Lane* p, Acc v) { _mm256_storeu_ps(p, v); }
  static Acc multiply_add(Acc acc, Acc x, const Weight* w) { return _mm256_fmadd_ps(x, _mm256_set1_ps(*w), acc); }
};
#else
constexpr int kRowLanes = 1;
struct Int16Pairs {
  static constexpr int kColumns = 4;
  static constexpr int kColumnsOnePanel = kColumns;
  using Acc = int32_t;
  using Lane = int32_t;
  using Weight = int16_t;
  static constexpr int kStep = 2;
  static Acc zero() { return 0; }
  static Acc load(const Lane* p) { return *p; }
  static void store(Lane* p, Acc v) { *p = v; }
  static Acc multiply_add(Acc acc, Acc x, const Weight* w) {
    const auto low = static_cast<int16_t>(static_cast<uint32_t>(x) & 0xffff);
    const auto high = static_cast<int16_t>(static_cast<uint32_t>(x) >> 16);
    return acc + low * w[0] + high * w[1];
  }
};
struct Floats {
  static constexpr int kColumns = 4;
  static constexpr int kColumnsOnePanel = kColumns;
  using Acc = float;
  using Lane = float;
  using Weight = float;
  static constexpr int kStep = 1;
  static Acc zero() { return 0.0f; }
  static Acc load(const Lane* p) { return *p; }
  static void store(Lane* p, Acc v) { *p = v; }
  static Acc multiply_add(Acc acc, Acc x, const Weight* w) { return acc + x * *w; }
};
#endif

// Weights of a column block, once widened, stay within this many bytes (L2).
constexpr long kColumnBlockBytes = 128 << 10;
// Below this many weights one thread is faster than two.
constexpr long kParallelWeights = 1 << 16;

// The activations as row panels: panel p holds rows [p * kRowLanes, (p + 1) * kRowLanes), and for
// each step t one vector of those rows' lanes (int16 pairs: (q[r][2t], q[r][2t + 1])). Rows past the
// last, and the odd input past an odd width, are zero.
template <typename P>
struct RowPanels {
  std::vector<typename P::Lane> lanes;
  int count = 0;  // panels
  int steps = 0;
  const typename P::Lane* panel(int p) const { return lanes.data() + static_cast<size_t>(p) * steps * kRowLanes; }
  typename P::Lane* lane(int r, int t) {
    return lanes.data() + (static_cast<size_t>(r / kRowLanes) * steps + t) * kRowLanes + r % kRowLanes;
  }
  void reset(int rows, int in) {
    count = (rows + kRowLanes - 1) / kRowLanes;
    steps = (in + P::kStep - 1) / P::kStep;
    lanes.assign(static_cast<size_t>(count) * steps * kRowLanes, 0);
  }
};

void fill(const int16_t* q, int rows, int in, RowPanels<Int16Pairs>& panels) {
  panels.reset(rows, in);
  const int whole_pairs = in / 2;
  for (int r = 0; r < rows; ++r) {
    const int16_t* src = q + static_cast<size_t>(r) * in;
    int32_t* dst = panels.lane(r, 0);
    for (int t = 0; t < whole_pairs; ++t) {  // two int16 in memory order: the low half is the first
      int32_t pair;
      std::memcpy(&pair, src + 2 * t, sizeof pair);
      dst[static_cast<size_t>(t) * kRowLanes] = pair;
    }
    if (in % 2) dst[static_cast<size_t>(whole_pairs) * kRowLanes] = static_cast<uint16_t>(src[in - 1]);
  }
}

void fill(const float* x, int rows, int ldx, int in, RowPanels<Floats>& panels) {
  panels.reset(rows, in);
  for (int r = 0; r < rows; ++r) {
    const float* src = x + static_cast<size_t>(r) * ldx;
    float* dst = panels.lane(r, 0);
    for (int i = 0; i < in; ++i) dst[static_cast<size_t>(i) * kRowLanes] = src[i];
  }
}

// sums[(c * V + v) * kRowLanes + lane] for C columns (widened weights, row stride ldw) and V panels.
template <typename P, int V, int C>
void tile(const RowPanels<P>& x, int first_panel, const typename P::Weight* w, int ldw, typename P::Lane* sums) {
  typename P::Acc acc[C][V];
  for (int c = 0; c < C; ++c)
    for (int v = 0; v < V; ++v) acc[c][v] = P::zero();
  const typename P::Lane* panel[V];
  for (int v = 0; v < V; ++v) panel[v] = x.panel(first_panel + v);
  for (int t = 0; t < x.steps; ++t) {
    typename P::Acc xv[V];
    for (int v = 0; v < V; ++v) xv[v] = P::load(panel[v] + static_cast<size_t>(t) * kRowLanes);
    for (int c = 0; c < C; ++c) {
      const typename P::Weight* wt = w + static_cast<size_t>(c) * ldw + P::kStep * t;
      for (int v = 0; v < V; ++v) acc[c][v] = P::multiply_add(acc[c][v], xv[v], wt);
    }
  }
  for (int c = 0; c < C; ++c)
    for (int v = 0; v < V; ++v) P::store(sums + (c * V + v) * kRowLanes, acc[c][v]);
}

// tile() for n <= C columns (C: the tile's width), the fewer ones left at the end of a block.
template <typename P, int V, int C = P::kColumns>
void tile_of(int n, const RowPanels<P>& x, int first_panel, const typename P::Weight* w, int ldw, typename P::Lane* sums) {
  if constexpr (C > 1) {
    if (n < C) return tile_of<P, V, C - 1>(n, x, first_panel, w, ldw, sums);
  }
  tile<P, V, C>(x, first_panel, w, ldw, sums);
}

// The product over the panels: the columns in blocks over the threads; widen(c0, c1, ldw, dst) writes
// the first `in` weights of each column of block [c0, c1) at ldw per column, write(col, r, sum) one
// output.
template <typename P, typename Widen, typename Write>
void by_row_panels(const RowPanels<P>& panels, int rows, int in, int out, const Widen& widen, const Write& write) {
  const int ldw = panels.steps * P::kStep;
  const bool parallel = static_cast<long>(out) * in >= kParallelWeights;
  const int threads = parallel ? omp_get_max_threads() : 1;
  // As few blocks as fit in L2, rounded up to a multiple of the threads so that each has as many
  // (3 blocks on 2 threads left one idle for a third of a small layer's product).
  constexpr int kColumns = P::kColumns;
  const int widest = std::max(kColumns, static_cast<int>(kColumnBlockBytes / (static_cast<long>(ldw) * sizeof(typename P::Weight))));
  int blocks = (out + widest - 1) / widest;
  blocks = std::min(out, (blocks + threads - 1) / threads * threads);
  const int block_columns = (out + blocks - 1) / blocks;
  blocks = (out + block_columns - 1) / block_columns;
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
  for (int b = 0; b < blocks; ++b) {
    const int c0 = b * block_columns;
    const int c1 = std::min(out, c0 + block_columns);
    thread_local std::vector<typename P::Weight> wide;
    wide.resize(static_cast<size_t>(c1 - c0) * ldw);
    widen(c0, c1, ldw, wide.data());
    for (int c = 0; c < c1 - c0 && ldw > in; ++c)  // the odd input's zero partner
      std::fill(wide.begin() + static_cast<size_t>(c) * ldw + in, wide.begin() + static_cast<size_t>(c + 1) * ldw, 0);
    typename P::Lane sums[std::max(2 * kColumns, P::kColumnsOnePanel) * kRowLanes];
    auto emit = [&](int c, int n, int p, int v) {
      const int lanes = std::min(v * kRowLanes, rows - p * kRowLanes);
      for (int l = 0; l < lanes; ++l)
        for (int j = 0; j < n; ++j) write(c + j, p * kRowLanes + l, sums[j * v * kRowLanes + l]);
    };
    auto weights_of = [&](int c) { return wide.data() + static_cast<size_t>(c - c0) * ldw; };
    // Pairs of panels take tiles of kColumns columns, an odd last panel tiles of kColumnsOnePanel,
    // right after the pairs' tiles over the same columns, whose weights are still in L1.
    static_assert(P::kColumnsOnePanel % kColumns == 0, "a lone panel's tile spans whole pair tiles");
    const int paired = panels.count / 2 * 2;
    for (int c = c0; c < c1; c += P::kColumnsOnePanel) {
      const int wide_n = std::min(P::kColumnsOnePanel, c1 - c);
      for (int cc = c; cc < c + wide_n; cc += kColumns) {
        const int n = std::min(kColumns, c + wide_n - cc);
        for (int p = 0; p < paired; p += 2) {
          tile_of<P, 2>(n, panels, p, weights_of(cc), ldw, sums);
          emit(cc, n, p, 2);
        }
      }
      if (paired < panels.count) {
        tile_of<P, 1, P::kColumnsOnePanel>(wide_n, panels, paired, weights_of(c), ldw, sums);
        emit(c, wide_n, paired, 1);
      }
    }
  }
}

}  // namespace

void int8_product_by_row_panels(const int16_t* q, const float* q_scales, int rows, const Int8Rows& w, int in,
                                int out, const StreamingOutput& o) {
  if (rows <= 0 || out <= 0) return;
  thread_local RowPanels<Int16Pairs> x;
  fill(q, rows, in, x);
  // The lambdas take copies: through references, every store to the outputs or the widened weights
  // made the compiler load them again.
  const int8_t* const values = w.values.data();
  const float* const w_scales = w.scales.data();
  auto widen = [values, in](int c0, int c1, int ldw, int16_t* dst) {
    for (int c = c0; c < c1; ++c) {
      const int8_t* src = values + static_cast<size_t>(c) * in;
      int16_t* d = dst + static_cast<size_t>(c - c0) * ldw;
      for (int i = 0; i < in; ++i) d[i] = src[i];
    }
  };
  auto write = [y = o.y, ldy = o.ldy, bias = o.bias, q_scales, w_scales](int col, int r, int32_t sum) {
    y[static_cast<size_t>(r) * ldy + col] = int8_product_output(sum, q_scales[r], w_scales[col], bias ? bias[col] : 0.0f);
  };
  by_row_panels(x, rows, in, out, widen, write);
}

void half_product_by_row_panels(const float* x, int rows, int ldx, const uint16_t* w, bool bf16, int in, int out,
                                const StreamingOutput& o) {
  if (rows <= 0 || out <= 0) return;
  thread_local RowPanels<Floats> panels;
  fill(x, rows, ldx, in, panels);
  auto widen = [w, bf16, in](int c0, int c1, int ldw, float* dst) {  // copies, as above
    constexpr int L = simd::kLanes;
    for (int c = c0; c < c1; ++c) {
      const uint16_t* src = w + static_cast<size_t>(c) * in;
      float* d = dst + static_cast<size_t>(c - c0) * ldw;
      int i = 0;
      if (bf16) {
        for (; i + L <= in; i += L) simd::store(d + i, simd::load_bf16(src + i));
        for (; i < in; ++i) d[i] = bf16_to_float(src[i]);
      } else {
        for (; i + L <= in; i += L) simd::store(d + i, simd::load_fp16(src + i));
        for (; i < in; ++i) d[i] = fp16_to_float(src[i]);
      }
    }
  };
  auto write = [y = o.y, ldy = o.ldy, bias = o.bias](int col, int r, float sum) {
    y[static_cast<size_t>(r) * ldy + col] = sum + (bias ? bias[col] : 0.0f);
  };
  by_row_panels(panels, rows, in, out, widen, write);
}

}  // namespace auris::AURIS_CPU_PATH
