#include "transcribe/vad_filter.h"

#include <gtest/gtest.h>

#include <cmath>

#include "auris/error.h"
#include "test_support.h"

namespace auris {
namespace {

constexpr int64_t kS = 16000;

// The public defaults are faster-whisper's VadOptions(), its get_speech_timestamps with them.
TEST(VadFilter, DefaultsAreFasterWhispers) {
  const SpeechTimestampsOptions o = speech_timestamps_options(VadParameters());
  const SpeechTimestampsOptions fw = SpeechTimestampsOptions::faster_whisper();
  EXPECT_EQ(o.threshold, fw.threshold);
  EXPECT_FALSE(o.neg_threshold.has_value());
  EXPECT_EQ(o.min_speech_duration_ms, 0);
  EXPECT_TRUE(std::isinf(o.max_speech_duration_s));
  EXPECT_EQ(o.min_silence_duration_ms, 2000);
  EXPECT_EQ(o.speech_pad_ms, 400);
  EXPECT_EQ(o.cut_at_longest_silence, fw.cut_at_longest_silence);
  EXPECT_TRUE(o.faster_whisper_windows);
  VadParameters p;
  p.neg_threshold = 0.2;
  p.max_speech_duration_s = 30;
  EXPECT_EQ(*speech_timestamps_options(p).neg_threshold, 0.2);
  EXPECT_EQ(speech_timestamps_options(p).max_speech_duration_s, 30.0);
}

TEST(VadFilter, ParametersOutOfRangeAreNamedWithTheirRange) {
  auto error = [](auto change) {
    VadParameters p;
    change(p);
    return test::error_of([&] { speech_timestamps_options(p); });
  };
  EXPECT_NE(error([](auto& p) { p.threshold = 1.5; }).find("threshold = 1.5 is out of range: allowed 0 to 1"), std::string::npos);
  EXPECT_NE(error([](auto& p) { p.neg_threshold = 0.6; }).find("neg_threshold = 0.6 is out of range: allowed 0 to threshold (0.5)"),
            std::string::npos);
  EXPECT_EQ(error([](auto& p) { p.neg_threshold = 0.5; }), "(no error)");
  EXPECT_NE(error([](auto& p) { p.min_speech_duration_ms = -1; }).find("min_speech_duration_ms = -1 ms"), std::string::npos);
  EXPECT_NE(error([](auto& p) { p.min_silence_duration_ms = -1; }).find("min_silence_duration_ms"), std::string::npos);
  EXPECT_NE(error([](auto& p) { p.speech_pad_ms = -1; }).find("speech_pad_ms = -1 ms is out of range"), std::string::npos);
  // 512 samples and twice 400 ms: 0.832 s.
  EXPECT_NE(error([](auto& p) { p.max_speech_duration_s = 0.5; }).find("allowed more than 0.832 s"), std::string::npos);
  EXPECT_NE(error([](auto& p) { p.max_speech_duration_s = NAN; }).find("max_speech_duration_s"), std::string::npos);
}

// Spans at 1-2 s, 3-4 s and 5-6 s: collected, they end at 1, 2 and 3 s, with 1, 2 and 3 s removed
// before them.
class RestoreTest : public ::testing::Test {
 protected:
  const std::vector<SpeechSpan> spans_ = {{1 * kS, 2 * kS}, {3 * kS, 4 * kS}, {5 * kS, 6 * kS}};
  const SpeechTimeMap map_{spans_};
};

// Without words, faster-whisper maps the start and end on their own, an end exactly at a span's end
// staying in that span.
TEST_F(RestoreTest, SegmentsWithoutWordsMapTheirEnds) {
  Segment s;
  s.start = 0.5;
  s.end = 2.0;
  restore_speech_timestamps(s, map_);
  EXPECT_EQ(s.start, 1.5);
  EXPECT_EQ(s.end, 4.0);  // the end of the second span, not the start of the third
  s.start = 1.0;  // a start on the boundary belongs to the next span
  s.end = 2.5;
  restore_speech_timestamps(s, map_);
  EXPECT_EQ(s.start, 3.0);
  EXPECT_EQ(s.end, 5.5);
}

// With words, each word moves with the span of its middle (both of its times), and the segment runs
// from the first word's start to the last word's end.
TEST_F(RestoreTest, WordsMoveWithTheSpanOfTheirMiddle) {
  Segment s;
  s.start = 0.0;
  s.end = 3.0;
  s.words = {{" across", 0.8, 1.1, 0.9}, {" late", 0.9, 1.3, 0.9}, {" last", 2.5, 2.99, 0.9}};
  restore_speech_timestamps(s, map_);
  EXPECT_EQ(s.words[0].start, 1.8);  // middle 0.95: the first span, its end past the span's
  EXPECT_EQ(s.words[0].end, 2.1);
  EXPECT_EQ(s.words[1].start, 2.9);  // middle 1.1: the second span, its start before it
  EXPECT_EQ(s.words[1].end, 3.3);
  EXPECT_EQ(s.words[2].start, 5.5);
  EXPECT_EQ(s.words[2].end, 5.99);
  EXPECT_EQ(s.start, 1.8);
  EXPECT_EQ(s.end, 5.99);
}

}  // namespace
}  // namespace auris
