// faster-whisper's collect_chunks and SpeechTimestampsMap (faster_whisper/vad.py), worked through
// by hand on spans of whole seconds.
#include "vad/speech_chunks.h"

#include <gtest/gtest.h>

#include <numeric>

#include "auris/error.h"
#include "vad/vad_fixtures_for_tests.h"

namespace auris {
namespace {

constexpr int64_t kSamplesPerSecond = 16000;

TEST(SpeechChunks, CollectPutsTheSpansEndToEnd) {
  std::vector<float> audio(100);
  std::iota(audio.begin(), audio.end(), 0.0f);
  const std::vector<SpeechSpan> spans = {{10, 13}, {50, 52}, {98, 100}};
  EXPECT_EQ(collect_speech(audio, spans), (std::vector<float>{10, 11, 12, 50, 51, 98, 99}));
  EXPECT_TRUE(collect_speech(audio, {}).empty());
  const std::vector<SpeechSpan> past_the_end = {{90, 101}};
  EXPECT_NE(test::error_of([&] { collect_speech(audio, past_the_end); }).find("does not lie within 100 samples"),
            std::string::npos);
}

TEST(SpeechChunks, GroupsHoldAtMostMaxDurationOfSpeech) {
  // 10 s, 15 s, 10 s, 31 s and 5 s of speech with a second of silence between them.
  std::vector<SpeechSpan> spans;
  int64_t at = 0;
  for (int64_t seconds : {10, 15, 10, 31, 5}) {
    spans.push_back({at, at + seconds * kSamplesPerSecond});
    at += (seconds + 1) * kSamplesPerSecond;
  }
  const std::vector<SpeechGroup> groups = group_speech(spans, 30.0);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].spans, (std::vector<SpeechSpan>{spans[0], spans[1]}));
  EXPECT_EQ(groups[1].spans, (std::vector<SpeechSpan>{spans[2]}));
  EXPECT_EQ(groups[2].spans, (std::vector<SpeechSpan>{spans[3]}));  // longer than 30 s, alone
  EXPECT_EQ(groups[3].spans, (std::vector<SpeechSpan>{spans[4]}));
  const double offsets[] = {0, 25, 35, 66}, durations[] = {25, 10, 31, 5};
  for (size_t i = 0; i < groups.size(); ++i) {
    EXPECT_EQ(groups[i].offset_s(), offsets[i]) << i;
    EXPECT_EQ(groups[i].duration_s(), durations[i]) << i;
  }
}

TEST(SpeechChunks, GroupingEdges) {
  // Exactly 30 s together is not more than 30 s: one group.
  const std::vector<SpeechSpan> exact = {{0, 10 * kSamplesPerSecond}, {11 * kSamplesPerSecond, 31 * kSamplesPerSecond}};
  EXPECT_EQ(group_speech(exact).size(), 1u);
  const std::vector<SpeechSpan> one_more = {{0, 10 * kSamplesPerSecond}, {11 * kSamplesPerSecond, 31 * kSamplesPerSecond + 1}};
  EXPECT_EQ(group_speech(one_more).size(), 2u);
  // A first span over the limit makes no empty group before it; no speech makes no group.
  const std::vector<SpeechSpan> long_first = {{0, 40 * kSamplesPerSecond}};
  ASSERT_EQ(group_speech(long_first).size(), 1u);
  EXPECT_EQ(group_speech(long_first)[0].num_samples, 40 * kSamplesPerSecond);
  EXPECT_TRUE(group_speech({}).empty());
  EXPECT_THROW(group_speech(exact, 0.0), Error);
}

// Spans at 1-2 s, 3-4 s and 5-6 s: collected, they end at 1, 2 and 3 s with 1, 2 and 3 s removed before.
class SpeechTimeMapTest : public ::testing::Test {
 protected:
  const std::vector<SpeechSpan> spans_ = {{1 * kSamplesPerSecond, 2 * kSamplesPerSecond}, {3 * kSamplesPerSecond, 4 * kSamplesPerSecond}, {5 * kSamplesPerSecond, 6 * kSamplesPerSecond}};
  const SpeechTimeMap map_{spans_};
};

TEST_F(SpeechTimeMapTest, TimesMapThroughTheSpanTheyFallIn) {
  EXPECT_EQ(map_.chunk_index(0.5), 0u);
  EXPECT_EQ(map_.original_time(0.5), 1.5);
  EXPECT_EQ(map_.original_time(2.5), 5.5);
  // A time on a boundary starts the next span, unless it is an end time.
  EXPECT_EQ(map_.chunk_index(1.0), 1u);
  EXPECT_EQ(map_.original_time(1.0), 3.0);
  EXPECT_EQ(map_.chunk_index(1.0, /*is_end=*/true), 0u);
  EXPECT_EQ(map_.original_time(1.0, std::nullopt, /*is_end=*/true), 2.0);
  // Past the end: the last span. A given span overrides (faster-whisper's words use their middle's).
  EXPECT_EQ(map_.original_time(10.0), 13.0);
  EXPECT_EQ(map_.original_time(1.01, 0), 2.01);
  EXPECT_THROW(map_.original_time(0.5, 3), Error);
}

// A span boundary at sample 256,256 is 16.016 s, which times 16,000 comes to 256,255.99...: the
// time is taken to its nearest sample, so a segment starting there maps through the span it starts,
// not the one before (faster-whisper truncates, and moves it back by the silence between).
TEST(SpeechTimeMap, ATimeOnABoundaryIsItsSampleNotTheOneBefore) {
  const int64_t boundary = 256256;
  ASSERT_LT(static_cast<double>(boundary) / kSamplesPerSecond * kSamplesPerSecond, static_cast<double>(boundary));
  const SpeechTimeMap map(std::vector<SpeechSpan>{{0, boundary}, {boundary + 10 * kSamplesPerSecond, boundary + 20 * kSamplesPerSecond}});
  const double start_of_second = static_cast<double>(boundary) / kSamplesPerSecond;
  EXPECT_EQ(map.chunk_index(start_of_second), 1u);
  EXPECT_EQ(map.original_time(start_of_second), 26.02);  // 16.016 + the 10 s removed, to 0.01 s
  EXPECT_EQ(map.chunk_index(start_of_second, /*is_end=*/true), 0u);
}

TEST_F(SpeechTimeMapTest, RoundsAsPythonsRound) {
  EXPECT_EQ(map_.original_time(0.125), 1.12);  // 1.125 is exact in binary: a tie, to even
  EXPECT_EQ(map_.original_time(0.135), 1.14);  // 1.135 is stored a little above
  EXPECT_EQ(map_.original_time(0.0049999), 1.0);
  EXPECT_EQ(SpeechTimeMap(spans_, 3).original_time(0.1234), 1.123);
}

TEST_F(SpeechTimeMapTest, SamplesMapExactly) {
  EXPECT_EQ(map_.original_sample(0), 1 * kSamplesPerSecond);
  EXPECT_EQ(map_.original_sample(kSamplesPerSecond - 1), 2 * kSamplesPerSecond - 1);
  EXPECT_EQ(map_.original_sample(kSamplesPerSecond), 3 * kSamplesPerSecond);
  EXPECT_EQ(map_.original_sample(3 * kSamplesPerSecond - 1), 6 * kSamplesPerSecond - 1);
  EXPECT_EQ(map_.original_sample(3 * kSamplesPerSecond + 10), 6 * kSamplesPerSecond + 10);
}

TEST(SpeechTimeMap, NoSpansAndBadSpans) {
  const SpeechTimeMap empty({});
  EXPECT_EQ(empty.original_time(1.234), 1.23);
  EXPECT_EQ(empty.original_sample(5), 5);
  EXPECT_THROW(empty.chunk_index(1.0), Error);
  const std::vector<SpeechSpan> overlapping = {{0, 100}, {50, 200}};
  EXPECT_NE(test::error_of([&] { SpeechTimeMap m(overlapping); }).find("in order and not overlap"), std::string::npos);
}

}  // namespace
}  // namespace auris
