// The hallucination rules from first principles (openai transcribe.py's word_anomaly_score,
// is_segment_anomaly and the silence skipping around them).
#include "transcribe/silence_skipping.h"

#include <gtest/gtest.h>

namespace auris {
namespace {

Segment segment_of(std::vector<Word> words) {
  Segment s;
  s.start = words.front().start;
  s.end = words.back().end;
  s.words = std::move(words);
  return s;
}

TEST(SilenceSkipping, AnomalyScores) {
  EXPECT_DOUBLE_EQ(word_anomaly_score({" a", 1.0, 1.5, 0.9}), 0.0);
  EXPECT_DOUBLE_EQ(word_anomaly_score({" a", 1.0, 1.5, 0.1}), 1.0);
  EXPECT_NEAR(word_anomaly_score({" a", 1.0, 1.033, 0.9}), 1.5, 1e-9);
  EXPECT_NEAR(word_anomaly_score({" a", 1.0, 4.0, 0.9}), 1.0, 1e-9);
}

TEST(SilenceSkipping, SegmentAnomalies) {
  EXPECT_FALSE(is_segment_anomaly(nullptr));
  const Segment good = segment_of({{" Hello", 0.0, 0.4, 0.9}, {" there", 0.4, 0.8, 0.8}});
  EXPECT_FALSE(is_segment_anomaly(&good));
  const Segment improbable = segment_of({{" Hello", 0.0, 0.4, 0.1}, {" there", 0.4, 0.8, 0.1}});
  EXPECT_TRUE(is_segment_anomaly(&improbable));
  // Punctuation-only segments count as anomalies (no words are scored).
  const Segment punctuation = segment_of({{"!", 0.0, 0.4, 0.9}});
  EXPECT_TRUE(is_segment_anomaly(&punctuation));
}

TEST(SilenceSkipping, AnAnomalousTailIsCountedOff) {
  // As tiny.en decoded an utterance the live VAD closed: its words, then "Thank you very much." of
  // improbable, instant words made up of the silence after them.
  const Segment said = segment_of({{" of", 166.16, 166.40, 0.91}, {" her", 166.40, 166.52, 0.95}, {" ways.", 166.52, 166.84, 0.97}});
  const Segment thanks = segment_of({{" Thank", 166.836, 166.836, 0.002}, {" you", 166.836, 166.836, 0.6},
                                     {" very", 166.836, 166.836, 0.137}, {" much.", 166.836, 166.876, 0.993}});
  EXPECT_EQ(count_before_anomalous_tail({said, thanks}), 1u);
  EXPECT_EQ(count_before_anomalous_tail({said, thanks, thanks}), 1u);
  EXPECT_EQ(count_before_anomalous_tail({thanks}), 0u);
  EXPECT_EQ(count_before_anomalous_tail({said}), 1u);
  EXPECT_EQ(count_before_anomalous_tail({thanks, said}), 2u) << "only a tail is counted off";
  EXPECT_EQ(count_before_anomalous_tail({}), 0u);
}

TEST(SilenceSkipping, SeekMovesToTheLastWordUnlessTheWindowEndedOnOneTimestamp) {
  std::vector<Segment> segments = {segment_of({{" a", 1.0, 1.5, 0.9}, {" b", 1.5, 2.125, 0.9}})};
  WindowPosition w;
  w.segment_size = 3000;
  w.window_end_time = 30.0;
  w.segment_duration = 30.0;
  EXPECT_EQ(seek_after_word_timestamps(segments, w, 1200, std::nullopt, 0.0).seek, 212);  // round half to even
  w.single_timestamp_ending = true;
  EXPECT_EQ(seek_after_word_timestamps(segments, w, 1200, std::nullopt, 0.0).seek, 1200);
}

TEST(SilenceSkipping, LeadingSilenceBeforeAHallucinationDropsTheWindow) {
  std::vector<Segment> segments = {segment_of({{" uh", 12.0, 12.05, 0.05}})};
  WindowPosition w;
  w.segment_size = 3000;
  w.window_end_time = 30.0;
  w.segment_duration = 30.0;
  w.content_duration = 60.0;
  w.content_frames = 6000;
  const SeekDecision d = seek_after_word_timestamps(segments, w, 3000, 2.0, 0.0);
  EXPECT_TRUE(d.drop_window);
  EXPECT_EQ(d.seek, 1200);
}

TEST(SilenceSkipping, HallucinationSurroundedBySilenceIsCut) {
  std::vector<Segment> segments = {segment_of({{" Hello", 0.5, 1.0, 0.9}, {" world", 1.0, 1.5, 0.9}}),
                                   segment_of({{" Thanks", 10.0, 10.05, 0.05}}),
                                   segment_of({{" for", 25.0, 25.05, 0.05}})};
  WindowPosition w;
  w.segment_size = 3000;
  w.window_end_time = 30.0;
  w.segment_duration = 30.0;
  w.content_duration = 60.0;
  w.content_frames = 6000;
  const SeekDecision d = seek_after_word_timestamps(segments, w, 2600, 2.0, 0.0);
  EXPECT_FALSE(d.drop_window);
  ASSERT_EQ(segments.size(), 1u);
  EXPECT_EQ(d.seek, 1000);
}

}  // namespace
}  // namespace auris
