#include "kernels/cpu/attention_bf16.h"

#include <omp.h>
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/cpu/simd.h"  // last: it enables the path's instructions

#if AURIS_CPU_PATH_LEVEL >= 2
// The path's instructions and AVX512-BF16's pair products; run only where the CPU reports them.
#pragma GCC target("avx2,fma,f16c,avx512f,avx512vl,avx512bw,avx512dq,avx512vnni,avx512bf16")
// GCC 12's AVX-512 intrinsics start from an undefined vector and warn wherever they are inlined
// (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace auris::AURIS_CPU_PATH {

#if AURIS_CPU_PATH_LEVEL >= 2
namespace {

// Two bf16 values in one 32-bit lane, the first in the low half: what one lane of vdpbf16ps
// multiplies and sums (a pair of components, or a pair of keys).
using Pair = uint32_t;

constexpr int kPanelKeys = 16;         // keys per panel: one vector of fp32 scores
constexpr int kScoreQueries = 12;      // queries per block of the scores: 12 x 2 panels = 24 accumulators
constexpr int kValueQueries = 6;       // queries per block of the weighted sums: 6 x 4 vectors (d_head 64)
constexpr int kUnitQueries = 60;       // queries per unit of parallel work: whole blocks of both
static_assert(kUnitQueries % kScoreQueries == 0 && kUnitQueries % kValueQueries == 0);
constexpr int kMaxColumnVectors = 4;  // d_head up to 64 in the weighted sums' registers

// 32 floats from p as 16 pairs, rounded to nearest even.
inline __m512i pairs_of(const float* p) {
  return reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(_mm512_loadu_ps(p + 16), _mm512_loadu_ps(p)));
}

inline __m512 dot_pairs(__m512 acc, __m512i a, __m512i b) {
  return _mm512_dpbf16_ps(acc, reinterpret_cast<__m512bh>(a), reinterpret_cast<__m512bh>(b));
}

// One head's keys as panels of pairs of components, [panel][d/2][kPanelKeys], and its values as
// pairs of keys, [n_kv/2 rounded up][d]; padding zero.
struct PackedHead {
  Pair* keys;
  Pair* values;
};

size_t packed_head_pairs(int n_kv, int d) {
  const size_t panels = (n_kv + kPanelKeys - 1) / kPanelKeys;
  return panels * kPanelKeys * (d / 2) + static_cast<size_t>((n_kv + 1) / 2) * d;
}

// The packed head that starts at `at` (packed_head_pairs(n_kv, d) pairs).
PackedHead packed_head_at(Pair* at, int n_kv, int d) {
  const size_t panels = (n_kv + kPanelKeys - 1) / kPanelKeys;
  return {at, at + panels * kPanelKeys * (d / 2)};
}

PackedHead pack_head(const float* k, int ldk, const float* v, int ldv, int n_kv, int d, Pair* dst) {
  const int panels = (n_kv + kPanelKeys - 1) / kPanelKeys;
  const PackedHead head = packed_head_at(dst, n_kv, d);
  alignas(64) Pair row[kMaxColumnVectors * 16 / 2];  // one key's d/2 pairs
  for (int p = 0; p < panels; ++p) {
    Pair* panel = head.keys + static_cast<size_t>(p) * kPanelKeys * (d / 2);
    for (int jj = 0; jj < kPanelKeys; ++jj) {
      const int j = p * kPanelKeys + jj;
      for (int c = 0; c < d; c += 32) {
        const __m512i pairs = j < n_kv ? pairs_of(k + static_cast<size_t>(j) * ldk + c) : _mm512_setzero_si512();
        _mm512_store_si512(row + c / 2, pairs);
      }
      for (int c2 = 0; c2 < d / 2; ++c2) panel[static_cast<size_t>(c2) * kPanelKeys + jj] = row[c2];
    }
  }
  // Lane c of a pair row: (first row's c, second row's c), interleaved from the two rows' 16 each.
  const __m512i interleave = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22, 6,
                                              21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  for (int j2 = 0; j2 < (n_kv + 1) / 2; ++j2) {
    const float* first = v + static_cast<size_t>(2 * j2) * ldv;
    const bool has_second = 2 * j2 + 1 < n_kv;
    for (int c = 0; c < d; c += 16) {
      const __m512 a = _mm512_loadu_ps(first + c);
      const __m512 b = has_second ? _mm512_loadu_ps(first + ldv + c) : _mm512_setzero_ps();
      const __m512i both = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(b, a));  // a's 16, then b's
      _mm512_storeu_si512(head.values + static_cast<size_t>(j2) * d + c, _mm512_permutexvar_epi16(interleave, both));
    }
  }
  return head;
}

// simd::exp_nonpositive's steps in 16 lanes, so each weight is the fp32 kernel's.
inline __m512 exp_nonpositive(__m512 x) { return simd::exp_nonpositive_over<simd::Vec16Ops>(x); }

inline __mmask16 first_lanes(int n) { return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << std::max(n, 0)) - 1); }

// A row of n scores to its softmax weights before the division, as pairs rounded to bf16 (zero past
// n, up to n_pairs pairs): exp(score - the row's max) in one pass with no fp32 copy. Returns 1 / the
// weights' sum, summed in double as exp_from_max_inplace sums them.
float weights_as_pairs(const float* scores, int n, Pair* pairs, int n_pairs) {
  __m512 max = _mm512_set1_ps(-INFINITY);
  for (int j = 0; j < n; j += 16)
    max = _mm512_max_ps(max, _mm512_mask_loadu_ps(_mm512_set1_ps(-INFINITY), first_lanes(n - j), scores + j));
  const __m512 shift = _mm512_set1_ps(_mm512_reduce_max_ps(max));
  __m512d sum_lo = _mm512_setzero_pd(), sum_hi = _mm512_setzero_pd();
  auto weights = [&](int j) {
    const __mmask16 lanes = first_lanes(n - j);
    const __m512 e = _mm512_maskz_mov_ps(lanes, exp_nonpositive(_mm512_sub_ps(_mm512_maskz_loadu_ps(lanes, scores + j), shift)));
    sum_lo = _mm512_add_pd(sum_lo, _mm512_cvtps_pd(_mm512_castps512_ps256(e)));
    sum_hi = _mm512_add_pd(sum_hi, _mm512_cvtps_pd(_mm512_extractf32x8_ps(e, 1)));
    return e;
  };
  for (int j = 0; j < 2 * n_pairs; j += 32) {
    const __m512 a = weights(j);
    const __m512 b = weights(j + 16);
    _mm512_storeu_si512(pairs + j / 2, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(b, a)));
  }
  return static_cast<float>(1.0 / _mm512_reduce_add_pd(_mm512_add_pd(sum_lo, sum_hi)));
}

// scores[i][j] = scale * <q_i, key j> over every panel, for N queries given as pairs (row stride d/2):
// two panels at a time, each load of a panel's pairs feeding N products.
template <int N>
void scores_block(const Pair* q, int d, const PackedHead& head, int n_kv, float scale, float* scores, int lds) {
  const int half = d / 2, panels = (n_kv + kPanelKeys - 1) / kPanelKeys;
  const __m512 scale_v = _mm512_set1_ps(scale);
  auto run = [&](auto J, int p) {
    constexpr int kJ = decltype(J)::value;
    __m512 acc[N][kJ];
    for (int i = 0; i < N; ++i)
      for (int u = 0; u < kJ; ++u) acc[i][u] = _mm512_setzero_ps();
    const Pair* panel = head.keys + static_cast<size_t>(p) * kPanelKeys * half;
    for (int c2 = 0; c2 < half; ++c2) {
      __m512i keys[kJ];
      for (int u = 0; u < kJ; ++u)
        keys[u] = _mm512_loadu_si512(panel + static_cast<size_t>(u) * kPanelKeys * half + static_cast<size_t>(c2) * kPanelKeys);
      for (int i = 0; i < N; ++i) {
        const __m512i qi = _mm512_set1_epi32(static_cast<int>(q[static_cast<size_t>(i) * half + c2]));
        for (int u = 0; u < kJ; ++u) acc[i][u] = dot_pairs(acc[i][u], qi, keys[u]);
      }
    }
    for (int i = 0; i < N; ++i)
      for (int u = 0; u < kJ; ++u)
        _mm512_storeu_ps(scores + static_cast<size_t>(i) * lds + (p + u) * kPanelKeys, _mm512_mul_ps(acc[i][u], scale_v));
  };
  int p = 0;
  for (; p + 2 <= panels; p += 2) run(std::integral_constant<int, 2>{}, p);
  if (p < panels) run(std::integral_constant<int, 1>{}, p);
}

// out_i[0, d) = sum_j w_i[j] * v_j for N queries, the weights as pairs of keys (row stride lw pairs)
// over n_pairs pairs of value rows: each value vector loaded once for all N queries.
template <int N, int C>
void weighted_values_block(const Pair* w, int lw, int n_pairs, const Pair* values, int d, float* out, int ldo) {
  __m512 acc[N][C];
  for (int i = 0; i < N; ++i)
    for (int u = 0; u < C; ++u) acc[i][u] = _mm512_setzero_ps();
  for (int j2 = 0; j2 < n_pairs; ++j2) {
    const Pair* row = values + static_cast<size_t>(j2) * d;
    __m512i v[C];
    for (int u = 0; u < C; ++u) v[u] = _mm512_loadu_si512(row + u * 16);
    for (int i = 0; i < N; ++i) {
      const __m512i wi = _mm512_set1_epi32(static_cast<int>(w[static_cast<size_t>(i) * lw + j2]));
      for (int u = 0; u < C; ++u) acc[i][u] = dot_pairs(acc[i][u], wi, v[u]);
    }
  }
  for (int i = 0; i < N; ++i)
    for (int u = 0; u < C; ++u) _mm512_storeu_ps(out + static_cast<size_t>(i) * ldo + u * 16, acc[i][u]);
}

template <int N>
void weighted_values(const Pair* w, int lw, int n_pairs, const Pair* values, int d, float* out, int ldo) {
  switch (d / 16) {
    case 2: return weighted_values_block<N, 2>(w, lw, n_pairs, values, d, out, ldo);
    default: return weighted_values_block<N, 4>(w, lw, n_pairs, values, d, out, ldo);
  }
}

// Calls f(std::integral_constant<int, n>) for n in 1..M, n a compile-time constant.
template <int M, typename F>
void with_count(int n, F&& f) {
  if constexpr (M > 1) {
    if (n < M) return with_count<M - 1>(n, f);
  }
  f(std::integral_constant<int, M>{});
}

// Queries [q_begin, q_end) of one head: their pairs, scores, softmax weights as pairs, weighted sums,
// and the softmax's division on the sums.
void unit(const AttentionInput& in, const PackedHead& head, const float* q, float* out, int ldo, int q_begin, int q_end,
          Pair* query_pairs, float* scores, Pair* weight_pairs) {
  const int d = in.d_head, half = d / 2, n = q_end - q_begin, n_kv = in.n_kv;
  const int lds = (n_kv + kPanelKeys - 1) / kPanelKeys * kPanelKeys;
  const int lw = (n_kv + 31) / 32 * 16;  // pairs per row of weights: whole vectors
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < d; c += 32)
      _mm512_storeu_si512(query_pairs + static_cast<size_t>(i) * half + c / 2,
                          pairs_of(q + static_cast<size_t>(q_begin + i) * in.ldq + c));
  for (int i0 = 0; i0 < n; i0 += kScoreQueries)
    with_count<kScoreQueries>(std::min(kScoreQueries, n - i0), [&](auto N) {
      scores_block<N>(query_pairs + static_cast<size_t>(i0) * half, d, head, n_kv, scale, scores + static_cast<size_t>(i0) * lds, lds);
    });
  float inverse_sums[kUnitQueries];
  for (int i = 0; i < n; ++i)
    inverse_sums[i] = weights_as_pairs(scores + static_cast<size_t>(i) * lds, n_kv, weight_pairs + static_cast<size_t>(i) * lw, lw);
  for (int i0 = 0; i0 < n; i0 += kValueQueries)
    with_count<kValueQueries>(std::min(kValueQueries, n - i0), [&](auto N) {
      weighted_values<N>(weight_pairs + static_cast<size_t>(i0) * lw, lw, (n_kv + 1) / 2, head.values, d,
                         out + static_cast<size_t>(q_begin + i0) * ldo, ldo);
    });
  for (int i = 0; i < n; ++i) {
    float* o = out + static_cast<size_t>(q_begin + i) * ldo;
    const __m512 inverse = _mm512_set1_ps(inverse_sums[i]);
    for (int c = 0; c < d; c += 16) _mm512_storeu_ps(o + c, _mm512_mul_ps(_mm512_loadu_ps(o + c), inverse));
  }
}

bool cpu_has_bf16_products() {
  static const bool has = __builtin_cpu_supports("avx512bf16");
  return has;
}

}  // namespace

bool attention_in_bf16(const AttentionInput& in, float* out, int ldo, std::vector<float>& scratch) {
  const int d = in.d_head;
  if (!in.bf16_products || !cpu_has_bf16_products() || in.causal_offset >= 0 || in.keys_in_panels || in.k_fp16 ||
      in.k_int8 || d % 32 != 0 || d > kMaxColumnVectors * 16 || in.n_q < kScoreQueries || in.n_kv <= 0)
    return false;
  const long k_stride = in.k_head_stride ? in.k_head_stride : d;
  const long v_stride = in.v_head_stride ? in.v_head_stride : d;
  const int chunks = (in.n_q + kUnitQueries - 1) / kUnitQueries;
  const int units = in.n_head * chunks;
  const int threads = std::min(omp_get_max_threads(), units);
  const int lds = (in.n_kv + kPanelKeys - 1) / kPanelKeys * kPanelKeys;
  const int lw = (in.n_kv + 31) / 32 * 16;
  const size_t head_pairs = packed_head_pairs(in.n_kv, d);
  // `pairs` holds every head's packed keys and values, then each thread's query and weight pairs for
  // its unit; `scratch` each thread's fp32 scores.
  const size_t thread_pairs = static_cast<size_t>(kUnitQueries) * (d / 2 + lw);
  const size_t thread_scores = static_cast<size_t>(kUnitQueries) * lds;
  thread_local std::vector<Pair> pairs;
  pairs.resize(head_pairs * in.n_head + thread_pairs * threads);
  if (scratch.size() < thread_scores * threads) scratch.resize(thread_scores * threads);
  Pair* packed = pairs.data();
  Pair* per_thread_pairs = packed + head_pairs * in.n_head;
#pragma omp parallel num_threads(threads)
  {
#pragma omp for schedule(static)
    for (int h = 0; h < in.n_head; ++h)
      pack_head(in.k + h * k_stride, in.ldk, in.v + h * v_stride, in.ldv, in.n_kv, d, packed + head_pairs * h);
    const int t = omp_get_thread_num();
    Pair* query_pairs = per_thread_pairs + thread_pairs * t;
    Pair* weight_pairs = query_pairs + static_cast<size_t>(kUnitQueries) * (d / 2);
    float* scores = scratch.data() + thread_scores * t;
#pragma omp for schedule(static)
    for (int u = 0; u < units; ++u) {
      const int h = u / chunks;
      const PackedHead head = packed_head_at(packed + head_pairs * h, in.n_kv, d);
      const int q_begin = (u % chunks) * kUnitQueries, q_end = std::min(in.n_q, q_begin + kUnitQueries);
      unit(in, head, in.q + h * d, out + h * d, ldo, q_begin, q_end, query_pairs, scores, weight_pairs);
    }
  }
  return true;
}

#else

bool attention_in_bf16(const AttentionInput&, float*, int, std::vector<float>&) { return false; }

#endif

}  // namespace auris::AURIS_CPU_PATH
