// The float vector the hand-written kernels are written in, once. This header is included last by
// the sources compiled once per CPU path (cpu_path.h, src/kernels/cpu/CMakeLists.txt), which define
// AURIS_CPU_PATH (the path's namespace) and AURIS_CPU_PATH_LEVEL: 0, one lane of plain C++; 1, 8
// lanes of AVX2 + FMA + F16C; 2, the same 8 lanes in AVX-512's encoding (32 vector registers) with
// VNNI's int8 dot products. The instructions are enabled by a target pragma from here to the end of
// the source, not by compiler flags: the inline functions and templates of the headers included
// before it stay baseline code, so no copy the linker may pick for other files uses instructions the
// CPU may lack. The kernels stream memory (decode steps) or are a small share of the time, so 512-bit
// vectors would buy little; oneDNN picks the widest instructions at run time for the GEMMs.
#pragma once

#include <cmath>
#include <cstdint>

#include "model/half_float.h"

#ifndef AURIS_CPU_PATH
#error "simd.h is for the sources compiled once per CPU path (src/kernels/cpu/CMakeLists.txt)"
#endif

#if AURIS_CPU_PATH_LEVEL >= 1
#include <immintrin.h>
#define AURIS_SIMD_AVX2 1
#endif
#if AURIS_CPU_PATH_LEVEL >= 2
#pragma GCC target("avx2,fma,f16c,avx512f,avx512vl,avx512bw,avx512dq,avx512vnni")
#elif AURIS_CPU_PATH_LEVEL >= 1
#pragma GCC target("avx2,fma,f16c")
#endif

namespace auris::AURIS_CPU_PATH::simd {

#if AURIS_SIMD_AVX2
constexpr int kLanes = 8;
using Vec = __m256;

inline Vec zero() { return _mm256_setzero_ps(); }
inline Vec set1(float x) { return _mm256_set1_ps(x); }
inline Vec load(const float* p) { return _mm256_loadu_ps(p); }
// A load the compiler keeps in a register. A vector used by several FMAs is otherwise loaded again as
// each one's memory operand, and a kernel whose FMAs share their operands then waits on the loads.
inline Vec load_to_register(const float* p) {
  Vec v = _mm256_loadu_ps(p);
  __asm__("" : "+x"(v));
  return v;
}
inline void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
inline Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline Vec sub(Vec a, Vec b) { return _mm256_sub_ps(a, b); }
inline Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
inline Vec div(Vec a, Vec b) { return _mm256_div_ps(a, b); }
inline Vec max(Vec a, Vec b) { return _mm256_max_ps(a, b); }
inline Vec min(Vec a, Vec b) { return _mm256_min_ps(a, b); }
// a * b + c, one rounding.
inline Vec fmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Vec abs(Vec a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
// Where x < limit, `below`; elsewhere v.
inline Vec select_below(Vec x, float limit, Vec below, Vec v) {
  return _mm256_blendv_ps(v, below, _mm256_cmp_ps(x, _mm256_set1_ps(limit), _CMP_LT_OQ));
}
// Round to the nearest integer (ties to even), as a float.
inline Vec round_nearest(Vec x) { return _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
// 2^n for integral n in [-126, 127].
inline Vec exp2_integer(Vec n) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
}
inline float reduce_add(Vec v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
// The lane sums of four vectors at once, out[u] = sum of v[u]'s lanes: one tree of horizontal adds
// where four reduce_add calls would each run their own chain.
inline void reduce_add4(Vec v0, Vec v1, Vec v2, Vec v3, float* out) {
  const __m256 pairs = _mm256_hadd_ps(_mm256_hadd_ps(v0, v1), _mm256_hadd_ps(v2, v3));
  _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(pairs), _mm256_extractf128_ps(pairs, 1)));
}
// Whether any lane is greater than t (NaN lanes are not).
inline bool any_greater(Vec v, float t) { return _mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_set1_ps(t), _CMP_GT_OQ)) != 0; }
// Whether any lane equals t.
inline bool any_equal(Vec v, float t) { return _mm256_movemask_ps(_mm256_cmp_ps(v, _mm256_set1_ps(t), _CMP_EQ_OQ)) != 0; }
inline float reduce_max(Vec v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
// A running sum of float vectors kept in double lanes, for long reductions (softmax over 1500 keys)
// that must not drift. Two accumulators so consecutive adds need not wait for each other.
class DoubleSum {
 public:
  // Written out: an implicit constructor would not have the path's instructions.
  DoubleSum() : lo_(_mm256_setzero_pd()), hi_(_mm256_setzero_pd()) {}
  void add(Vec v) {
    lo_ = _mm256_add_pd(lo_, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    hi_ = _mm256_add_pd(hi_, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
  }
  // Adds (v - center)^2 lane by lane, difference and square in double: a variance's sum.
  void add_squared_difference(Vec v, double center) {
    const __m256d c = _mm256_set1_pd(center);
    const __m256d lo = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), c);
    const __m256d hi = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), c);
    lo_ = _mm256_fmadd_pd(lo, lo, lo_);
    hi_ = _mm256_fmadd_pd(hi, hi, hi_);
  }
  double total() const {
    const __m256d s = _mm256_add_pd(lo_, hi_);
    __m128d t = _mm_add_pd(_mm256_castpd256_pd128(s), _mm256_extractf128_pd(s, 1));
    return _mm_cvtsd_f64(_mm_add_sd(t, _mm_unpackhi_pd(t, t)));
  }

 private:
  __m256d lo_, hi_;
};

// Weights stored narrower than fp32, widened exactly in registers.
inline Vec load_fp16(const uint16_t* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
inline Vec load_bf16(const uint16_t* p) {
  const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
}
// 8 int8 values (the int8 cross-attention cache), as floats.
inline Vec load_int8(const int8_t* p) {
  return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}

// Integer dot products, for int8 weights: 16 int8 weights widened to int16 times 16 int16
// activations, multiplied and summed in pairs into 8 int32 lanes (pmaddwd).
constexpr int kInt16Lanes = 16;
using IntVec = __m256i;
inline IntVec int_zero() { return _mm256_setzero_si256(); }
inline IntVec load_int8_as_int16(const int8_t* p) {
  return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline IntVec load_int16(const int16_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
// acc + the pairwise products of a and b.
inline IntVec multiply_add_pairs(IntVec acc, IntVec a, IntVec b) {
#if AURIS_CPU_PATH_LEVEL >= 2
  return _mm256_dpwssd_epi32(acc, a, b);  // VNNI: the same sums in one instruction (no saturation)
#else
  return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
#endif
}
inline IntVec int_add(IntVec a, IntVec b) { return _mm256_add_epi32(a, b); }
inline int32_t reduce_add(IntVec v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_cvtsi128_si32(s);
}

#else
constexpr int kLanes = 1;
struct Vec {
  float x;
};

inline Vec zero() { return {0.0f}; }
inline Vec set1(float x) { return {x}; }
inline Vec load(const float* p) { return {*p}; }
inline Vec load_to_register(const float* p) { return {*p}; }
inline void store(float* p, Vec v) { *p = v.x; }
inline Vec add(Vec a, Vec b) { return {a.x + b.x}; }
inline Vec sub(Vec a, Vec b) { return {a.x - b.x}; }
inline Vec mul(Vec a, Vec b) { return {a.x * b.x}; }
inline Vec div(Vec a, Vec b) { return {a.x / b.x}; }
inline Vec max(Vec a, Vec b) { return {a.x > b.x ? a.x : b.x}; }
inline Vec min(Vec a, Vec b) { return {a.x < b.x ? a.x : b.x}; }
// Not std::fma: without FMA instructions (the CPUs this path is for) it is a slow library call.
inline Vec fmadd(Vec a, Vec b, Vec c) { return {a.x * b.x + c.x}; }
inline Vec abs(Vec a) { return {std::fabs(a.x)}; }
inline Vec select_below(Vec x, float limit, Vec below, Vec v) { return x.x < limit ? below : v; }
inline Vec round_nearest(Vec x) { return {std::nearbyint(x.x)}; }
inline Vec exp2_integer(Vec n) { return {std::ldexp(1.0f, static_cast<int>(n.x))}; }
inline float reduce_add(Vec v) { return v.x; }
inline void reduce_add4(Vec v0, Vec v1, Vec v2, Vec v3, float* out) {
  out[0] = v0.x;
  out[1] = v1.x;
  out[2] = v2.x;
  out[3] = v3.x;
}
inline bool any_greater(Vec v, float t) { return v.x > t; }
inline bool any_equal(Vec v, float t) { return v.x == t; }
inline float reduce_max(Vec v) { return v.x; }
class DoubleSum {
 public:
  void add(Vec v) { sum_ += v.x; }
  void add_squared_difference(Vec v, double center) {
    const double d = v.x - center;
    sum_ += d * d;
  }
  double total() const { return sum_; }

 private:
  double sum_ = 0.0;
};
inline Vec load_fp16(const uint16_t* p) { return {fp16_to_float(*p)}; }
inline Vec load_bf16(const uint16_t* p) { return {bf16_to_float(*p)}; }
inline Vec load_int8(const int8_t* p) { return {static_cast<float>(*p)}; }

constexpr int kInt16Lanes = 1;
struct IntVec {
  int32_t x;
};
inline IntVec int_zero() { return {0}; }
inline IntVec load_int8_as_int16(const int8_t* p) { return {*p}; }
inline IntVec load_int16(const int16_t* p) { return {*p}; }
inline IntVec multiply_add_pairs(IntVec acc, IntVec a, IntVec b) { return {acc.x + a.x * b.x}; }
inline IntVec int_add(IntVec a, IntVec b) { return {a.x + b.x}; }
inline int32_t reduce_add(IntVec v) { return v.x; }
#endif

// e^x for x <= 0 (scores minus their maximum: softmax's domain), within 2 ulp of expf down to
// -87.3 and exactly 0 below, -inf included (masked scores). x = n ln2 + r with |r| <= ln2/2; e^r by
// its degree-7 Taylor polynomial (truncation below 6e-9 relative) evaluated by Estrin's scheme, whose
// short dependency chains let several vectors overlap; 2^n by exponent arithmetic.
// Written once over a vector's operations (Ops: V, set1, zero, max, mul, fmadd, round_nearest,
// exp2_integer, select_below), so a wider kernel (attention_bf16.cc's 16 lanes) takes the same steps.
template <class Ops>
inline typename Ops::V exp_nonpositive_over(typename Ops::V x) {
  using V = typename Ops::V;
  const V clamped = Ops::max(x, Ops::set1(-87.3f));
  const V n = Ops::round_nearest(Ops::mul(clamped, Ops::set1(1.44269504088896341f)));
  V r = Ops::fmadd(n, Ops::set1(-0.693145751953125f), clamped);  // ln2 in two parts: n*ln2 is exact
  r = Ops::fmadd(n, Ops::set1(-1.428606765330187e-06f), r);
  const V r2 = Ops::mul(r, r);
  const V r4 = Ops::mul(r2, r2);
  const V p01 = Ops::fmadd(r, Ops::set1(1.0f), Ops::set1(1.0f));
  const V p23 = Ops::fmadd(r, Ops::set1(1.0f / 6), Ops::set1(0.5f));
  const V p45 = Ops::fmadd(r, Ops::set1(1.0f / 120), Ops::set1(1.0f / 24));
  const V p67 = Ops::fmadd(r, Ops::set1(1.0f / 5040), Ops::set1(1.0f / 720));
  const V p = Ops::fmadd(Ops::fmadd(p67, r2, p45), r4, Ops::fmadd(p23, r2, p01));
  return Ops::select_below(x, -87.3f, Ops::zero(), Ops::mul(p, Ops::exp2_integer(n)));
}
struct VecOps {
  using V = Vec;
  static V set1(float x) { return simd::set1(x); }
  static V zero() { return simd::zero(); }
  static V max(V a, V b) { return simd::max(a, b); }
  static V mul(V a, V b) { return simd::mul(a, b); }
  static V fmadd(V a, V b, V c) { return simd::fmadd(a, b, c); }
  static V round_nearest(V x) { return simd::round_nearest(x); }
  static V exp2_integer(V n) { return simd::exp2_integer(n); }
  static V select_below(V x, float limit, V below, V v) { return simd::select_below(x, limit, below, v); }
};
inline Vec exp_nonpositive(Vec x) { return exp_nonpositive_over<VecOps>(x); }
#if AURIS_CPU_PATH_LEVEL >= 2
// 16 lanes, for the kernels that run on AVX-512 alone. Defined here, under this header's target
// rather than a kernel's wider one, so that exp_nonpositive_over inlines its operations.
struct Vec16Ops {
  using V = __m512;
  static V set1(float x) { return _mm512_set1_ps(x); }
  static V zero() { return _mm512_setzero_ps(); }
  static V max(V a, V b) { return _mm512_max_ps(a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V round_nearest(V x) { return _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static V exp2_integer(V n) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23));
  }
  static V select_below(V x, float limit, V below, V v) {
    return _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(x, _mm512_set1_ps(limit), _CMP_LT_OQ), below);
  }
};
#endif

// Exact GELU, x * Phi(x) = x/2 * erfc(-x/sqrt2), through Abramowitz & Stegun 7.1.26:
// erfc(z) = t P(t) e^{-z^2} for z >= 0, t = 1/(1 + p z) (absolute error below 1.5e-7). Written as
// erfc, the negative side takes no cancellation: GELU(x) = x/2 * t P(t) e^{-x^2/2} for x < 0 and
// x/2 * (2 - t P(t) e^{-x^2/2}) for x >= 0.
inline Vec gelu(Vec x) {
  const Vec z = mul(abs(x), set1(0.70710678118654752f));
  const Vec t = div(set1(1.0f), fmadd(set1(0.3275911f), z, set1(1.0f)));
  Vec poly = set1(1.061405429f);
  poly = fmadd(poly, t, set1(-1.453152027f));
  poly = fmadd(poly, t, set1(1.421413741f));
  poly = fmadd(poly, t, set1(-0.284496736f));
  poly = fmadd(poly, t, set1(0.254829592f));
  const Vec tail = mul(mul(poly, t), exp_nonpositive(mul(mul(z, z), set1(-1.0f))));  // erfc(|x|/sqrt2)
  const Vec phi2 = select_below(x, 0.0f, tail, sub(set1(2.0f), tail));   // 2 Phi(x)
  return mul(mul(x, set1(0.5f)), phi2);
}

}  // namespace auris::AURIS_CPU_PATH::simd
