#include "audio/mel_filters.h"

#include <gtest/gtest.h>

#include <cmath>

#include "audio/audio_fixtures_for_tests.h"
#include "auris/error.h"

namespace auris {
namespace {

class MelFiltersTest : public ::testing::TestWithParam<int> {};

// The bank computed from first principles equals the one openai/whisper ships (mel_filters.npz).
TEST_P(MelFiltersTest, MatchesWhispersShippedBank) {
  const int n_mels = GetParam();
  const auto reference = test::read_fixture_array<float>("mel_filters_" + std::to_string(n_mels) + ".bin");
  const MelFilterBank bank = compute_mel_filters(n_mels);
  ASSERT_EQ(bank.n_mels, n_mels);
  ASSERT_EQ(bank.weights.size(), reference.size());
  float max_diff = 0;
  for (size_t i = 0; i < reference.size(); ++i) max_diff = std::max(max_diff, std::abs(bank.weights[i] - reference[i]));
  EXPECT_LT(max_diff, 1e-7f);
}

// first_bin/end_bin cover every non-zero weight, so the sparse product equals the dense one.
TEST_P(MelFiltersTest, BinRangesCoverAllWeights) {
  const MelFilterBank& bank = mel_filters(GetParam());
  for (int m = 0; m < bank.n_mels; ++m) {
    EXPECT_LT(bank.first_bin[m], bank.end_bin[m]) << "filter " << m << " is empty";
    for (int k = 0; k < kNFftBins; ++k) {
      if (k < bank.first_bin[m] || k >= bank.end_bin[m]) {
        EXPECT_EQ(bank.weights[static_cast<size_t>(m) * kNFftBins + k], 0.0f) << m << "," << k;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Whisper, MelFiltersTest, ::testing::Values(80, 128));

TEST(MelFilters, RejectsUnsupportedSizes) {
  EXPECT_THROW(compute_mel_filters(64), Error);
  EXPECT_THROW(mel_filters(0), Error);
}

}  // namespace
}  // namespace auris
