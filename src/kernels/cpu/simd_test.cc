// The vector math the kernels build on, against the C library in double: e^x over softmax's whole
// domain (x <= 0) and the exact-erf GELU over the activations' range, for every lane position (a tail that is
// not a multiple of the vector length takes the scalar path and must agree too).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/cpu/cpu_path.h"
#include "kernels/cpu/norm_activation.h"

// The AVX2 path's vector functions, compiled into this test under a namespace of their own. simd.h
// comes last: it enables AVX2 for the rest of the file, which CMake keeps out of unity batches.
#define AURIS_CPU_PATH simd_test_avx2
#define AURIS_CPU_PATH_LEVEL 1
#include "kernels/cpu/simd.h"

namespace auris::AURIS_CPU_PATH {
namespace {

#define SKIP_WITHOUT_AVX2() \
  if (!cpu_supports(CpuPath::kAvx2)) GTEST_SKIP() << "this CPU lacks AVX2"

std::vector<float> lane_values(const std::vector<float>& x, simd::Vec (*fn)(simd::Vec)) {
  std::vector<float> y(x.size());
  for (size_t i = 0; i + simd::kLanes <= x.size(); i += simd::kLanes) simd::store(y.data() + i, fn(simd::load(x.data() + i)));
  return y;
}

TEST(Simd, ExpWithinTwoUlpOfLibm) {
  SKIP_WITHOUT_AVX2();
  std::vector<float> x;
  for (float v = -87.0f; v <= 0.0f; v += 0.00731f) x.push_back(v);
  x.resize(x.size() / simd::kLanes * simd::kLanes);
  const std::vector<float> y = lane_values(x, simd::exp_nonpositive);
  for (size_t i = 0; i < x.size(); ++i) {
    const double expected = std::exp(double(x[i]));
    ASSERT_NEAR(y[i], expected, 2.5e-7 * expected) << "x = " << x[i];
  }
}

TEST(Simd, ExpIsZeroForMaskedScores) {
  SKIP_WITHOUT_AVX2();
  std::vector<float> x(simd::kLanes, -INFINITY);
  x[0] = -1000.0f;
  for (float y : lane_values(x, simd::exp_nonpositive)) EXPECT_EQ(y, 0.0f);
}

TEST(Simd, GeluMatchesErfDefinition) {
  SKIP_WITHOUT_AVX2();
  std::vector<float> x;
  for (float v = -12.0f; v < 12.0f; v += 0.00731f) x.push_back(v);
  x.resize(x.size() / simd::kLanes * simd::kLanes);
  const std::vector<float> y = lane_values(x, simd::gelu);
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    const double expected = 0.5 * v * std::erfc(-v / std::sqrt(2.0));
    // A&S 7.1.26's 1.5e-7 on erfc, scaled by |x|/2, plus fp32 rounding of the result.
    ASSERT_NEAR(y[i], expected, 1e-7 * std::fabs(v) + 2.5e-7 * std::fabs(expected) + 1e-30) << "x = " << v;
  }
}

TEST(Simd, GeluInplaceHandlesTails) {
  for (long n : {1L, 7L, 13L, 100L}) {
    std::vector<float> x(n);
    for (long i = 0; i < n; ++i) x[i] = -3.0f + 0.37f * static_cast<float>(i);
    std::vector<float> y = x;
    gelu_inplace(y.data(), n);
    for (long i = 0; i < n; ++i) {
      const double expected = 0.5 * x[i] * std::erfc(-double(x[i]) / std::sqrt(2.0));
      ASSERT_NEAR(y[i], expected, 1e-6) << n << " at " << i;
    }
  }
}

}  // namespace
}  // namespace auris::AURIS_CPU_PATH
