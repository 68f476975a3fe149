#include "kernels/cpu/attention.h"

#include <omp.h>
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/cpu/attention_bf16.h"
#include "kernels/cpu/dispatched_kernels.h"
#include "kernels/cpu/norm_activation.h"
#include "model/half_float.h"
#include "kernels/cpu/simd.h"  // last: it enables the path's instructions

namespace auris::AURIS_CPU_PATH {

namespace {

constexpr int L = simd::kLanes;
// Queries of one head per unit of parallel work in the many-query path: ten blocks of
// kManyQueryBlock, so the encoder's 1500 queries leave no short block, whose kernel has fewer
// accumulators.
constexpr int kQueryChunk = 60;
// Up to this many queries (a decode step's beams) run straight over the keys as they are stored.
constexpr int kFewQueries = 8;
// Keys per chunk of weighted_values (their fp32 value rows: 16 KB at d_head 64, within L1), and how
// many rows ahead its first pass prefetches.
constexpr int kValueChunk = 64;
constexpr int kPrefetchRows = 32;

// One head's operands; keys and values as fp32, as fp16, or as int8 with their scales.
struct HeadView {
  const float* q;
  const float* k;
  const float* v;
  const uint16_t* k16;
  const uint16_t* v16;
  const int8_t* k8;
  const int8_t* v8;
  const float* key_scales;
  const float* value_scales;
  float* out;
};

HeadView head_view(const AttentionInput& in, int h, float* out) {
  const long k_stride = in.k_head_stride ? in.k_head_stride : in.d_head;
  const long v_stride = in.v_head_stride ? in.v_head_stride : in.d_head;
  const bool half = in.k_fp16 != nullptr;
  const bool int8 = in.k_int8 != nullptr;
  const bool fp32 = !half && !int8;
  return {in.q + h * in.d_head,
          fp32 ? in.k + h * k_stride : nullptr,
          fp32 ? in.v + h * v_stride : nullptr,
          half ? in.k_fp16 + h * k_stride : nullptr,
          half ? in.v_fp16 + h * v_stride : nullptr,
          int8 ? in.k_int8 + h * k_stride : nullptr,
          int8 ? in.v_int8 + h * v_stride : nullptr,
          int8 ? in.key_scales + h * in.scale_head_stride : nullptr,
          int8 ? in.value_scales + h * in.scale_head_stride : nullptr,
          out + h * in.d_head};
}

inline simd::Vec load_any(const float* p) { return simd::load(p); }
inline simd::Vec load_any(const uint16_t* p) { return simd::load_fp16(p); }
inline simd::Vec load_any(const int8_t* p) { return simd::load_int8(p); }
inline float scalar_any(const float* p) { return *p; }
inline float scalar_any(const uint16_t* p) { return fp16_to_float(*p); }
inline float scalar_any(const int8_t* p) { return *p; }

// Calls f(std::integral_constant<int, n>) for n in 1..8 (more: 8), so the row count of a decode
// step's kernels is a compile-time constant (their accumulators live in registers).
template <typename F>
void with_row_count(int n, F&& f) {
  switch (n) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 3: return f(std::integral_constant<int, 3>{});
    case 4: return f(std::integral_constant<int, 4>{});
    case 5: return f(std::integral_constant<int, 5>{});
    case 6: return f(std::integral_constant<int, 6>{});
    case 7: return f(std::integral_constant<int, 7>{});
    default: return f(std::integral_constant<int, 8>{});
  }
}

int visible_keys(const AttentionInput& in, int i) {
  return in.causal_offset >= 0 ? std::min(in.n_kv, i + in.causal_offset + 1) : in.n_kv;
}

// <a, b> summed exactly as scores_over_rows sums each key of a group of four: one chain of FMAs over
// the vectors, reduce_add4's tree across the lanes, then the columns past the last vector. A key's
// score is then the same to the bit whether it falls in a group or among the last few, so a prefix
// split in two (a shared prompt and each beam's own keys) scores as the whole does.
float dot(const float* a, const float* b, int n) {
  simd::Vec acc = simd::zero();
  int c = 0;
  for (; c + L <= n; c += L) acc = simd::fmadd(simd::load_to_register(a + c), simd::load(b + c), acc);
  float sums[4];
  simd::reduce_add4(acc, simd::zero(), simd::zero(), simd::zero(), sums);
  for (; c < n; ++c) sums[0] = std::fma(a[c], b[c], sums[0]);
  return sums[0];
}

// scores[i][j] = scale * <q_i, key j> for N queries over one panel of kKeyPanel keys ([d x kKeyPanel]):
// each load of 8 keys' components feeds N FMAs, and no horizontal sums. With key_scales (the panel's
// kKeyPanel scales of int8 keys), score j is also multiplied by key_scales[j].
template <int N, typename K>
void scores_over_panel(const float* q, int ldq, const K* panel, int d, float scale, const float* key_scales,
                       float* scores, int lds) {
  constexpr int J = N <= 6 ? 2 : 1;  // vectors of keys per pass: as many accumulators as registers allow
  static_assert(kKeyPanel % (2 * L) == 0, "a panel is a whole number of passes");
  for (int j = 0; j < kKeyPanel; j += J * L) {
    simd::Vec acc[N][J];
    for (int i = 0; i < N; ++i)
      for (int u = 0; u < J; ++u) acc[i][u] = simd::zero();
    for (int c = 0; c < d; ++c) {
      const K* krow = panel + static_cast<size_t>(c) * kKeyPanel + j;
      simd::Vec k[J];
      for (int u = 0; u < J; ++u) k[u] = load_any(krow + u * L);
      for (int i = 0; i < N; ++i) {
        const simd::Vec qi = simd::set1(q[static_cast<size_t>(i) * ldq + c]);
        for (int u = 0; u < J; ++u) acc[i][u] = simd::fmadd(qi, k[u], acc[i][u]);
      }
    }
    simd::Vec scales[J];
    for (int u = 0; u < J; ++u)
      scales[u] = key_scales ? simd::mul(simd::set1(scale), simd::load(key_scales + j + u * L)) : simd::set1(scale);
    for (int i = 0; i < N; ++i)
      for (int u = 0; u < J; ++u) simd::store(scores + static_cast<size_t>(i) * lds + j + u * L, simd::mul(acc[i][u], scales[u]));
  }
}

// scores[i][j] = scale * <q_i, key j> for N queries over keys stored by row (the decoder's
// self-attention cache, row stride ldk), four keys at a time: their partial sums meet in one tree of
// horizontal adds. One key at a time, each product waited on its own chain of FMAs and then on its
// own horizontal sum, and a beam step's self-attention scores took several times their arithmetic.
template <int N>
void scores_over_rows(const float* q, int ldq, const float* k, int ldk, int d, int n_kv, float scale, float* scores,
                      int lds) {
  const int vector_columns = d / L * L;
  int j = 0;
  for (; j + 4 <= n_kv; j += 4) {
    const float* keys[4];
    for (int u = 0; u < 4; ++u) keys[u] = k + static_cast<size_t>(j + u) * ldk;
    for (int i = 0; i < N; ++i) {
      const float* qi = q + static_cast<size_t>(i) * ldq;
      simd::Vec acc[4] = {simd::zero(), simd::zero(), simd::zero(), simd::zero()};
      for (int c = 0; c < vector_columns; c += L) {
        const simd::Vec qv = simd::load_to_register(qi + c);
        for (int u = 0; u < 4; ++u) acc[u] = simd::fmadd(qv, simd::load(keys[u] + c), acc[u]);
      }
      float sums[4];
      simd::reduce_add4(acc[0], acc[1], acc[2], acc[3], sums);
      for (int u = 0; u < 4; ++u) {
        for (int c = vector_columns; c < d; ++c) sums[u] = std::fma(qi[c], keys[u][c], sums[u]);
        scores[static_cast<size_t>(i) * lds + j + u] = sums[u] * scale;
      }
    }
  }
  for (; j < n_kv; ++j)
    for (int i = 0; i < N; ++i)
      scores[static_cast<size_t>(i) * lds + j] = dot(q + static_cast<size_t>(i) * ldq, k + static_cast<size_t>(j) * ldk, d) * scale;
}

// Scores of N queries over the panels holding keys [0, n_kv): row stride lds >= key_panel_capacity(n_kv);
// the padding keys' scores are written too (and never read).
template <int N, typename K>
void scores_over_panels(const float* q, int ldq, const K* panels, int d, int n_kv, float scale, const float* key_scales,
                        float* scores, int lds) {
  for (int p = 0; p * kKeyPanel < n_kv; ++p)
    scores_over_panel<N>(q, ldq, panels + static_cast<size_t>(p) * d * kKeyPanel, d, scale,
                         key_scales ? key_scales + p * kKeyPanel : nullptr, scores + p * kKeyPanel, lds);
}

// For N queries: out_i[c0, c0 + U*L) (+)= sum_j p_i[j] * v_j[c0, ...), N*U accumulators in registers
// over n keys, so each value vector is loaded (and widened from fp16) once for all N queries. With
// `accumulate` the sums continue from what out holds. With prefetch_bytes > 0, the first
// prefetch_bytes of the value row kPrefetchRows ahead are requested (up to row `rows_left`).
template <int N, int U, typename V>
void weighted_values_block(const float* p, int lds, int n, const V* v, int ldv, int c0, float* out, int ldo,
                           bool accumulate, int prefetch_bytes, int rows_left) {
  simd::Vec acc[N][U];
  for (int i = 0; i < N; ++i)
    for (int u = 0; u < U; ++u)
      acc[i][u] = accumulate ? simd::load(out + static_cast<size_t>(i) * ldo + c0 + u * L) : simd::zero();
  auto step = [&](int j) {
    const V* row = v + static_cast<size_t>(j) * ldv + c0;
    simd::Vec values[U];
    for (int u = 0; u < U; ++u) values[u] = load_any(row + u * L);
    for (int i = 0; i < N; ++i) {
      const simd::Vec w = simd::set1(p[static_cast<size_t>(i) * lds + j]);
      for (int u = 0; u < U; ++u) acc[i][u] = simd::fmadd(w, values[u], acc[i][u]);
    }
  };
  if (prefetch_bytes > 0) {
    for (int j = 0; j < n; ++j) {
      if (j + kPrefetchRows < rows_left) {
        const char* ahead = reinterpret_cast<const char*>(v + static_cast<size_t>(j + kPrefetchRows) * ldv);
        for (int b = 0; b < prefetch_bytes; b += 64) __builtin_prefetch(ahead + b);
      }
      step(j);
    }
  } else {
    for (int j = 0; j < n; ++j) step(j);
  }
  for (int i = 0; i < N; ++i)
    for (int u = 0; u < U; ++u) simd::store(out + static_cast<size_t>(i) * ldo + c0 + u * L, acc[i][u]);
}

// Keys [j0, j0 + nj) of weighted_values' sums, over the columns that fill whole vectors; with j0 > 0
// (or continue_sums) the sums continue from what out holds. The first column block prefetches whole
// rows ahead when `prefetch` is set (up to row n, the last one the sums read).
template <int N, typename V>
void weighted_values_chunk(const float* p, int lds, int j0, int nj, int n, const V* v, int ldv, int d, float* out,
                           int ldo, bool prefetch, bool continue_sums = false) {
  constexpr int U = N == 1 ? 8 : (N == 2 ? 4 : (N <= 6 ? 2 : 1));  // N*U + U + 1 <= 16 registers
  const int vector_columns = d / L * L;
  const int row_bytes = prefetch ? d * static_cast<int>(sizeof(V)) : 0;
  const float* pj = p + j0;
  const V* vj = v + static_cast<size_t>(j0) * ldv;
  const bool more = j0 > 0 || continue_sums;
  int c0 = 0;
  for (; c0 + U * L <= vector_columns; c0 += U * L)
    weighted_values_block<N, U>(pj, lds, nj, vj, ldv, c0, out, ldo, more, c0 == 0 ? row_bytes : 0, n - j0);
  for (; c0 < vector_columns; c0 += L)
    weighted_values_block<N, 1>(pj, lds, nj, vj, ldv, c0, out, ldo, more, c0 == 0 ? row_bytes : 0, n - j0);
}

// The columns past the last whole vector (d_head not a multiple of the vector width), summed in key
// order with one FMA per key, as each lane of the vector columns is.
template <typename V>
void weighted_values_tail(const float* p, int lds, int n_rows, int n, const V* v, int ldv, int d, float* out, int ldo) {
  for (int c0 = d / L * L; c0 < d; ++c0)
    for (int i = 0; i < n_rows; ++i) {
      float sum = 0.0f;
      for (int j = 0; j < n; ++j) sum = std::fma(p[static_cast<size_t>(i) * lds + j], scalar_any(v + static_cast<size_t>(j) * ldv + c0), sum);
      out[static_cast<size_t>(i) * ldo + c0] = sum;
    }
}

// out_i[d] = sum_j p_i[j] * v_j over n value rows (row stride ldv) for N queries (p row stride lds,
// out row stride ldo). A decode step's value rows come from memory, and a pass over one column block
// of every row is a strided walk (one cache line in four) that the hardware prefetcher follows
// poorly, so a beam step's weighted sums waited on memory. The keys therefore go in chunks of
// kValueChunk whose rows stay in L1 across the passes, and the first pass prefetches whole rows
// ahead. Each lane still sums over j in order, so the chunking changes no bit of the result.
template <int N, typename V>
void weighted_values(const float* p, int lds, int n, const V* v, int ldv, int d, float* out, int ldo) {
  for (int j0 = 0; j0 < n || j0 == 0; j0 += kValueChunk)
    weighted_values_chunk<N>(p, lds, j0, std::min(kValueChunk, n - j0), n, v, ldv, d, out, ldo, true);
  weighted_values_tail(p, lds, N, n, v, ldv, d, out, ldo);
}

// Softmax of each query's row over its visible keys, all but its division: weight j = exp(score j -
// the row's max), and inverse_sums[i] = 1 / the row's sum, which divide_by_sums applies to the d_head
// weighted sums instead of the n_kv weights: one pass over every key's weight fewer. The keys
// a query does not see (up to n_kv) get weight 0. With value_scales (int8 values), weight j is then
// multiplied by value row j's scale, which the weighted sums of the int8 rows need.
void exp_rows(const AttentionInput& in, int q0, int n, int n_kv, float* scores, int lds,
              const float* value_scales, float* inverse_sums) {
  for (int i = 0; i < n; ++i) {
    float* p = scores + static_cast<size_t>(i) * lds;
    const int visible = visible_keys(in, q0 + i);
    for (int j = visible; j < n_kv; ++j) p[j] = 0.0f;
    const ExpSum e = exp_from_max_inplace(p, visible);
    inverse_sums[i] = static_cast<float>(1.0 / e.sum);
    if (value_scales)
      for (int j = 0; j < visible; ++j) p[j] *= value_scales[j];
  }
}

// out row i [0, d) *= inverse_sums[i] for n rows: the softmax's division, on the weighted sums.
void divide_by_sums(float* out, int ldo, int n, int d, const float* inverse_sums) {
  for (int i = 0; i < n; ++i) {
    float* o = out + static_cast<size_t>(i) * ldo;
    const simd::Vec inverse = simd::set1(inverse_sums[i]);
    int c = 0;
    for (; c + L <= d; c += L) simd::store(o + c, simd::mul(simd::load(o + c), inverse));
    for (; c < d; ++c) o[c] *= inverse_sums[i];
  }
}

// All queries of one head (a decode step's few) against its keys, each key and value read once for
// all the queries; masked keys get weight 0. BLAS would first pack whole K and V panels, which costs
// more than the arithmetic itself. scores: [n_q x key_panel_capacity(n_kv)].
void few_queries(const AttentionInput& in, const HeadView& hv, int ldo, float* scores) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(in.d_head));
  const int d = in.d_head, n = in.n_q, n_kv = in.n_kv, lds = key_panel_capacity(n_kv);
  if (hv.k8) {
    with_row_count(n, [&](auto N) { scores_over_panels<N>(hv.q, in.ldq, hv.k8, d, n_kv, scale, hv.key_scales, scores, lds); });
  } else if (hv.k16) {
    with_row_count(n, [&](auto N) { scores_over_panels<N>(hv.q, in.ldq, hv.k16, d, n_kv, scale, nullptr, scores, lds); });
  } else if (in.keys_in_panels) {
    with_row_count(n, [&](auto N) { scores_over_panels<N>(hv.q, in.ldq, hv.k, d, n_kv, scale, nullptr, scores, lds); });
  } else {
    with_row_count(n, [&](auto N) { scores_over_rows<N>(hv.q, in.ldq, hv.k, in.ldk, d, n_kv, scale, scores, lds); });
  }
  float inverse_sums[kFewQueries];
  exp_rows(in, 0, n, n_kv, scores, lds, hv.value_scales, inverse_sums);
  with_row_count(n, [&](auto N) {
    if (hv.v8)
      weighted_values<N>(scores, lds, n_kv, hv.v8, in.ldv, d, hv.out, ldo);
    else if (hv.v16)
      weighted_values<N>(scores, lds, n_kv, hv.v16, in.ldv, d, hv.out, ldo);
    else
      weighted_values<N>(scores, lds, n_kv, hv.v, in.ldv, d, hv.out, ldo);
  });
  divide_by_sums(hv.out, ldo, n, d, inverse_sums);
}

// One head of attention_over_shared_prompt: the queries' scores over the prompt (each key read once
// for all of them) and each query's over its own keys, side by side in its row of scores; one softmax
// per row over both; then the weighted sums over the prompt's values, continued over each query's own.
// Every lane sums its keys in prefix order, as attention() over the whole prefix does.
void shared_prompt_head(const SharedPromptInput& in, int h, int r0, int n, float* out, int ldo, float* scores) {
  const int d = in.d_head, n_keys = in.n_prompt + in.n_own, lds = key_panel_capacity(n_keys);
  const int seen_own = in.own_causal_offset < 0 ? in.n_own : std::min(in.n_own, in.own_causal_offset + 1);
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const size_t head = static_cast<size_t>(h) * d;  // in the queries' and the output's rows
  const size_t kv_head = static_cast<size_t>(h) * (in.head_stride ? in.head_stride : d);
  const float* q = in.q + static_cast<size_t>(r0) * in.ldq + head;
  float* o = out + static_cast<size_t>(r0) * ldo + head;
  const float* const* own_k = in.own_k + r0;
  const float* const* own_v = in.own_v + r0;
  with_row_count(n, [&](auto N) { scores_over_rows<N>(q, in.ldq, in.prompt_k + kv_head, in.ld, d, in.n_prompt, scale, scores, lds); });
  float inverse_sums[kFewQueries];
  for (int i = 0; i < n; ++i) {
    float* p = scores + static_cast<size_t>(i) * lds;
    scores_over_rows<1>(q + static_cast<size_t>(i) * in.ldq, in.ldq, own_k[i] + kv_head, in.ld, d, in.n_own, scale,
                        p + in.n_prompt, lds);
    const int seen = in.n_prompt + seen_own;
    std::fill(p + seen, p + n_keys, 0.0f);
    inverse_sums[i] = static_cast<float>(1.0 / exp_from_max_inplace(p, seen).sum);
  }
  with_row_count(n, [&](auto N) {
    for (int j0 = 0; j0 < in.n_prompt; j0 += kValueChunk)
      weighted_values_chunk<N>(scores, lds, j0, std::min(kValueChunk, in.n_prompt - j0), in.n_prompt, in.prompt_v + kv_head,
                               in.ld, d, o, ldo, true);
  });
  for (int i = 0; i < n; ++i) {
    const float* prompt_p = scores + static_cast<size_t>(i) * lds;
    const float* own_p = prompt_p + in.n_prompt;
    float* oi = o + static_cast<size_t>(i) * ldo;
    for (int j0 = 0; j0 < seen_own; j0 += kValueChunk)
      weighted_values_chunk<1>(own_p, lds, j0, std::min(kValueChunk, seen_own - j0), seen_own, own_v[i] + kv_head, in.ld,
                               d, oi, ldo, true, /*continue_sums=*/in.n_prompt > 0);
    for (int c = d / L * L; c < d; ++c) {  // as weighted_values_tail sums them
      float sum = 0.0f;
      for (int j = 0; j < in.n_prompt; ++j) sum = std::fma(prompt_p[j], in.prompt_v[static_cast<size_t>(j) * in.ld + kv_head + c], sum);
      for (int j = 0; j < seen_own; ++j) sum = std::fma(own_p[j], own_v[i][static_cast<size_t>(j) * in.ld + kv_head + c], sum);
      oi[c] = sum;
    }
  }
  divide_by_sums(o, ldo, n, d, inverse_sums);
}

// Many queries (the encoder, a prefill) run the same register-blocked kernels as a decode step, over
// key panels: the cross-attention cache's own, or, for keys and values stored by row (self-attention),
// panels and contiguous value rows packed once per call (read in place, a head's rows lie a whole row
// of every head apart, and each block of queries would walk a TLB entry per key). Queries go in
// blocks of kManyQueryBlock (6 x 2 vectors of accumulators fill the 16 AVX2 registers). Two sgemm
// calls per chunk of queries instead would repack the keys and values for every chunk and see an
// inner dimension of only d_head; bench/levers.py times both ("the encoder's self-attention").
constexpr int kManyQueryBlock = 6;
static_assert(kQueryChunk % kManyQueryBlock == 0, "a unit of queries is whole blocks");
// Keys per tile of many_queries_unit's scores pass: a multiple of kKeyPanel, whose panels stay in L1
// (16 KB at d_head 64) while every block of the unit reads them.
constexpr int kKeyTile = 64;

// One head's keys as panels and its values, in fp32, fp16, or int8 with their scales.
template <typename T>
struct PanelHead {
  const T* keys;
  const T* values;
  int ldv;
  const float* key_scales = nullptr;
  const float* value_scales = nullptr;
};

// A head's keys into panels and its values into contiguous rows, from rows of the given strides.
PanelHead<float> pack_head(const AttentionInput& in, const float* k, const float* v, float* dst) {
  const int d = in.d_head, n_kv = in.n_kv, padded = key_panel_capacity(n_kv);
  float* panels = dst;
  float* values = dst + static_cast<size_t>(d) * padded;
  // The last panel's padding is multiplied but never read: zeros keep it free of NaN and denormals.
  std::fill(panels + static_cast<size_t>(padded - kKeyPanel) * d, panels + static_cast<size_t>(padded) * d, 0.0f);
  for (int j = 0; j < n_kv; ++j)
    for (int c = 0; c < d; ++c)
      panels[(static_cast<size_t>(j / kKeyPanel) * d + c) * kKeyPanel + j % kKeyPanel] = k[static_cast<size_t>(j) * in.ldk + c];
  for (int j = 0; j < n_kv; ++j) std::copy_n(v + static_cast<size_t>(j) * in.ldv, d, values + static_cast<size_t>(j) * d);
  return {panels, values, d};
}

// Queries [q_begin, q_end) of one head (a unit of parallel work), in blocks of kManyQueryBlock. Each
// block's scores come from the register-blocked kernels, but the loops run tile by tile over the keys
// and chunk by chunk over the values, every block of the unit inside: a head's keys and values do
// not fit in L2 together, and block by block they were streamed from L3 once per block. Every score
// and every lane's sum over the keys is formed as block by block, so the result is the same to the
// bit. A causal block reads only the keys its last query sees. scores: [q_end - q_begin x lds].
template <typename T>
void many_queries_unit(const AttentionInput& in, const HeadView& hv, const PanelHead<T>& head, int ldo,
                       int q_begin, int q_end, float* scores, int lds) {
  const int d = in.d_head;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const int n_vis_max = visible_keys(in, q_end - 1);
  auto each_block = [&](auto&& f) {
    for (int q0 = q_begin; q0 < q_end; q0 += kManyQueryBlock) {
      const int n = std::min(kManyQueryBlock, q_end - q0);
      with_row_count(n, [&](auto N) { f(N, q0, n, visible_keys(in, q0 + n - 1), scores + static_cast<size_t>(q0 - q_begin) * lds); });
    }
  };
  for (int t0 = 0; t0 < n_vis_max; t0 += kKeyTile)
    each_block([&](auto N, int q0, int, int n_vis, float* block_scores) {
      if (t0 >= n_vis) return;
      scores_over_panels<N>(hv.q + static_cast<size_t>(q0) * in.ldq, in.ldq, head.keys + static_cast<size_t>(t0) * d, d,
                            std::min(kKeyTile, n_vis - t0), scale, head.key_scales ? head.key_scales + t0 : nullptr,
                            block_scores + t0, lds);
    });
  float inverse_sums[kQueryChunk];
  each_block([&](auto, int q0, int n, int n_vis, float* block_scores) {
    exp_rows(in, q0, n, n_vis, block_scores, lds, head.value_scales, inverse_sums + (q0 - q_begin));
  });
  for (int j0 = 0; j0 < n_vis_max || j0 == 0; j0 += kValueChunk)
    each_block([&](auto N, int q0, int, int n_vis, float* block_scores) {
      if (j0 >= n_vis && j0 > 0) return;
      weighted_values_chunk<N>(block_scores, lds, j0, std::min(kValueChunk, n_vis - j0), n_vis, head.values, head.ldv, d,
                               hv.out + static_cast<size_t>(q0) * ldo, ldo, q0 == q_begin);
    });
  each_block([&](auto N, int q0, int, int n_vis, float* block_scores) {
    weighted_values_tail(block_scores, lds, N, n_vis, head.values, head.ldv, d, hv.out + static_cast<size_t>(q0) * ldo, ldo);
  });
  divide_by_sums(hv.out + static_cast<size_t>(q_begin) * ldo, ldo, q_end - q_begin, d, inverse_sums);
}

void many_queries(const AttentionInput& in, float* out, int ldo, std::vector<float>& scratch) {
  const int d = in.d_head;
  const int padded = key_panel_capacity(in.n_kv);
  const bool pack = !in.keys_in_panels;
  const size_t head_size = pack ? 2 * static_cast<size_t>(d) * padded : 0;  // packed keys, then values
  const int chunks = (in.n_q + kQueryChunk - 1) / kQueryChunk;
  const int units = in.n_head * chunks;
  const int threads = std::min(omp_get_max_threads(), units);
  const size_t packed_size = head_size * in.n_head;
  const size_t score_size = static_cast<size_t>(kQueryChunk) * padded;
  if (scratch.size() < packed_size + score_size * threads) scratch.resize(packed_size + score_size * threads);
  auto packed_head = [&](int h) {
    const float* keys = scratch.data() + head_size * h;
    return PanelHead<float>{keys, keys + static_cast<size_t>(d) * padded, d};
  };
#pragma omp parallel num_threads(threads)
  {
    if (pack) {
#pragma omp for schedule(static)
      for (int h = 0; h < in.n_head; ++h) {
        const HeadView hv = head_view(in, h, out);
        pack_head(in, hv.k, hv.v, scratch.data() + head_size * h);
      }
    }
    float* scores = scratch.data() + packed_size + score_size * omp_get_thread_num();
#pragma omp for schedule(static)
    for (int u = 0; u < units; ++u) {
      const int h = u / chunks;
      const HeadView hv = head_view(in, h, out);
      const int q_begin = (u % chunks) * kQueryChunk, q_end = std::min(in.n_q, q_begin + kQueryChunk);
      if (hv.k8)
        many_queries_unit(in, hv, PanelHead<int8_t>{hv.k8, hv.v8, in.ldv, hv.key_scales, hv.value_scales}, ldo, q_begin,
                          q_end, scores, padded);
      else if (hv.k16)
        many_queries_unit(in, hv, PanelHead<uint16_t>{hv.k16, hv.v16, in.ldv}, ldo, q_begin, q_end, scores, padded);
      else if (pack)
        many_queries_unit(in, hv, packed_head(h), ldo, q_begin, q_end, scores, padded);
      else
        many_queries_unit(in, hv, PanelHead<float>{hv.k, hv.v, in.ldv}, ldo, q_begin, q_end, scores, padded);
    }
  }
}

}  // namespace

void attention(const AttentionInput& in, float* out, int ldo, std::vector<float>& scratch) {
  if (in.n_q <= 0) return;
  if (in.n_q > kFewQueries) {
    if (attention_in_bf16(in, out, ldo, scratch)) return;
    return many_queries(in, out, ldo, scratch);
  }
  // Parallel over heads pays once each head has a few panels of keys: a decode step's self-attention
  // over a prefix of 64 or more.
  const bool parallel = static_cast<long>(in.n_q) * in.n_kv * in.d_head >= 4096 && in.n_head > 1;
  const int threads = parallel ? std::min(omp_get_max_threads(), in.n_head) : 1;
  const size_t score_size = static_cast<size_t>(in.n_q) * key_panel_capacity(in.n_kv);
  if (scratch.size() < score_size * threads) scratch.resize(score_size * threads);
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
  for (int h = 0; h < in.n_head; ++h)
    few_queries(in, head_view(in, h, out), ldo, scratch.data() + score_size * omp_get_thread_num());
}

void attention_over_shared_prompt(const SharedPromptInput& in, float* out, int ldo, std::vector<float>& scratch) {
  if (in.n_q <= 0) return;
  const bool parallel = static_cast<long>(in.n_q) * (in.n_prompt + in.n_own) * in.d_head >= 4096 && in.n_head > 1;
  const int threads = parallel ? std::min(omp_get_max_threads(), in.n_head) : 1;
  const size_t score_size = static_cast<size_t>(kFewQueries) * key_panel_capacity(in.n_prompt + in.n_own);
  if (scratch.size() < score_size * threads) scratch.resize(score_size * threads);
  // Queries in groups the register-blocked kernels take (more than 8 beams read the prompt once per 8).
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
  for (int h = 0; h < in.n_head; ++h)
    for (int r0 = 0; r0 < in.n_q; r0 += kFewQueries)
      shared_prompt_head(in, h, r0, std::min(kFewQueries, in.n_q - r0), out, ldo, scratch.data() + score_size * omp_get_thread_num());
}

}  // namespace auris::AURIS_CPU_PATH
