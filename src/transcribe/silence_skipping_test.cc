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

TEST(SilenceSkipping, AnAnomalousRunOfWordsIsCountedOff) {
  // As base decoded an utterance the live VAD closed: "when it comes." said, then the prompt's
  // "And I shall be a young man yet" again, in improbable, instant words, in the same segment.
  const std::vector<Word> said = {{" young", 38.63, 38.81, 0.997}, {" man", 38.81, 39.05, 0.997}, {" yet", 39.05, 39.35, 0.78},
                                  {" when", 39.35, 39.61, 0.705}, {" it", 39.61, 39.75, 0.991}, {" comes.", 39.75, 40.01, 0.995}};
  const std::vector<Word> made_up = {{" And", 40.01, 40.09, 0.006}, {" I", 40.09, 40.09, 0.042}, {" shall", 40.09, 40.09, 0.001},
                                     {" be", 40.09, 40.09, 0.052}, {" a", 40.09, 40.09, 0.009}, {" young", 40.09, 40.09, 0.001},
                                     {" man", 40.09, 40.19, 0.243}, {" yet", 40.19, 40.27, 0.0}};
  std::vector<Word> words = said;
  words.insert(words.end(), made_up.begin(), made_up.end());
  EXPECT_EQ(count_before_anomalous_words(words), said.size());
  EXPECT_EQ(count_before_anomalous_words(said), said.size());
  EXPECT_EQ(count_before_anomalous_words(made_up), 0u);
  EXPECT_EQ(count_before_anomalous_words({}), 0u);

  // An improbable word that was said, followed by ordinary ones, is kept, however anomalous the tail.
  std::vector<Word> improbable_then_said = {{" Putting", 46.2, 46.5, 0.1}};
  improbable_then_said.insert(improbable_then_said.end(), said.begin(), said.end());
  std::vector<Word> with_tail = improbable_then_said;
  with_tail.insert(with_tail.end(), made_up.begin(), made_up.end());
  EXPECT_EQ(count_before_anomalous_words(improbable_then_said), improbable_then_said.size());
  EXPECT_EQ(count_before_anomalous_words(with_tail), improbable_then_said.size());

  // A lone improbable last word is counted off too (" man" in made_up shows that one ordinary word
  // inside a run does not end it).
  std::vector<Word> cut_off = said;
  cut_off.push_back({" I", 40.1, 40.66, 0.027});
  EXPECT_EQ(count_before_anomalous_words(cut_off), said.size());
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
