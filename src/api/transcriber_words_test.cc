// transcribe() with word timestamps, clips, carried prompts and hallucination skipping, against the
// real openai/whisper transcribe() on the same weights and audio (tests/fixtures/timing/transcribe_*,
// written by tools/reference/make_timing_fixtures.py); and the errors for options it cannot use.
#include <gtest/gtest.h>

#include "test_support.h"

#include <cmath>
#include <functional>
#include <map>

#include "auris/audio.h"
#include "api/engine_access.h"
#include "auris/error.h"
#include "auris/transcribe.h"
#include "transcribe/timing_fixtures_for_tests.h"

namespace auris {
namespace {

constexpr double kSegmentTolerance = 0.02 + 1e-9;  // one timestamp token
constexpr double kWordTolerance = 0.1;

TranscribeOptions options_from(const nlohmann::json& o) {
  TranscribeOptions options;
  if (o.contains("word_timestamps")) options.word_timestamps = o.at("word_timestamps").get<bool>();
  if (o.contains("prepend_punctuations")) options.prepend_punctuations = o.at("prepend_punctuations").get<std::string>();
  if (o.contains("append_punctuations")) options.append_punctuations = o.at("append_punctuations").get<std::string>();
  if (o.contains("initial_prompt")) options.initial_prompt = o.at("initial_prompt").get<std::string>();
  if (o.contains("carry_initial_prompt")) options.carry_initial_prompt = o.at("carry_initial_prompt").get<bool>();
  if (o.contains("condition_on_previous_text"))
    options.condition_on_previous_text = o.at("condition_on_previous_text").get<bool>();
  if (o.contains("hallucination_silence_threshold"))
    options.hallucination_silence_threshold = o.at("hallucination_silence_threshold").get<double>();
  if (o.contains("clip_timestamps")) {
    const auto& clips = o.at("clip_timestamps");
    options.clip_timestamps = clips.is_string() ? parse_clip_timestamps(clips.get<std::string>())
                                                : clips.get<std::vector<double>>();
  }
  return options;
}

class TranscribeParity : public ::testing::TestWithParam<std::string> {};

TEST_P(TranscribeParity, EqualsOpenaiTranscribe) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const nlohmann::json ref = test::read_timing_fixture("transcribe_" + GetParam() + ".json");
  const std::string model_path = test::cached_model(ref.at("model").get<std::string>());
  if (model_path.empty()) GTEST_SKIP() << "model not cached: run scripts/fetch_models.sh";
  Transcriber transcriber(Model::load(model_path));
  const TranscribeOptions options = options_from(ref.at("options"));
  const Transcript t = transcriber.transcribe(load_audio(data + "/" + ref.at("clip").get<std::string>()), 16000, options);

  EXPECT_EQ(t.word_timestamps, options.word_timestamps);
  EXPECT_EQ(t.text, ref.at("text").get<std::string>());
  const auto& segments = ref.at("segments");
  ASSERT_EQ(t.segments.size(), segments.size());
  for (size_t i = 0; i < segments.size(); ++i) {
    SCOPED_TRACE("segment " + std::to_string(i));
    const auto& r = segments[i];
    const Segment& s = t.segments[i];
    if (r.at("temperature").get<double>() != 0.0) continue;  // sampled: openai's RNG is not reproduced
    EXPECT_EQ(s.id, static_cast<int>(i));
    EXPECT_EQ(s.seek, r.at("seek").get<int>());
    EXPECT_EQ(s.text, r.at("text").get<std::string>());
    EXPECT_EQ(s.tokens, r.at("tokens").get<std::vector<int>>());
    const double tolerance = options.word_timestamps ? kWordTolerance : kSegmentTolerance;
    EXPECT_NEAR(s.start, r.at("start").get<double>(), tolerance);
    EXPECT_NEAR(s.end, r.at("end").get<double>(), tolerance);
    const auto words = r.value("words", nlohmann::json::array());
    ASSERT_EQ(s.words.size(), words.size());
    for (size_t k = 0; k < words.size(); ++k) {
      EXPECT_EQ(s.words[k].word, words[k].at("word").get<std::string>());
      EXPECT_NEAR(s.words[k].start, words[k].at("start").get<double>(), kWordTolerance) << s.words[k].word;
      EXPECT_NEAR(s.words[k].end, words[k].at("end").get<double>(), kWordTolerance) << s.words[k].word;
      EXPECT_NEAR(s.words[k].probability, words[k].at("probability").get<double>(), 0.05) << s.words[k].word;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Jfk, TranscribeParity,
                         ::testing::Values("words", "words_base", "words_punctuation", "clips_carry_prompt",
                                           "clips_prompt", "clips_carry_prompt_conditioned", "clips_words_hallucination"));

using test::error_of;

TEST(TranscribeOptionErrors, ClipTimestampsThatAreNotNumbers) {
  EXPECT_EQ(parse_clip_timestamps(""), std::vector<double>{});
  EXPECT_EQ(parse_clip_timestamps("0, 5.5,8"), (std::vector<double>{0.0, 5.5, 8.0}));
  EXPECT_NE(error_of([] { parse_clip_timestamps("0,abc"); }).find("'abc'"), std::string::npos);
  EXPECT_NE(error_of([] { parse_clip_timestamps("1,"); }).find("not a number"), std::string::npos);
}

TEST(TranscribeOptionErrors, RefusedBeforeAnyDecoding) {
  const std::string path = test::cached_model("tiny.en");
  if (path.empty()) GTEST_SKIP() << "model tiny.en not cached: run scripts/fetch_models.sh";
  Transcriber transcriber(Model::load(path));
  const std::vector<float> audio(16000, 0.0f);
  auto run = [&](TranscribeOptions o) { return error_of([&] { transcriber.transcribe(audio, 16000, o); }); };
  TranscribeOptions o;
  o.clip_timestamps = {-1.0};
  EXPECT_NE(run(o).find("non-negative"), std::string::npos);
  o.clip_timestamps = {0.5, NAN};
  EXPECT_NE(run(o).find("non-negative finite"), std::string::npos);
  o.clip_timestamps = {0.8, 0.2};
  EXPECT_NE(run(o).find("must end after it starts"), std::string::npos);
  o = {};
  o.word_timestamps = true;
  o.hallucination_silence_threshold = INFINITY;
  EXPECT_NE(run(o).find("hallucination_silence_threshold"), std::string::npos);
  EXPECT_EQ(engine_counters(transcriber).encoder_windows, 0);  // nothing was decoded
}

TEST(TranscribeClips, ClipsPastTheEndStopAtTheEnd) {
  // openai loops forever on a clip that reaches past the audio; auris stops at the end.
  AURIS_REQUIRE_SHARED_DATA(data);
  const std::string path = test::cached_model("tiny.en");
  if (path.empty()) GTEST_SKIP() << "model tiny.en not cached: run scripts/fetch_models.sh";
  Transcriber transcriber(Model::load(path));
  const std::vector<float> audio = load_audio(data + "/audio/jfk.flac");
  TranscribeOptions o;
  o.clip_timestamps = {8.0, 20.0, 30.0};
  const Transcript t = transcriber.transcribe(audio, 16000, o);
  ASSERT_FALSE(t.segments.empty());
  EXPECT_GE(t.segments.front().start, 8.0);
  EXPECT_LE(t.segments.back().end, 11.01);
  EXPECT_EQ(engine_counters(transcriber).encoder_windows, 1);
}

TEST(TranscribeToTheEnd, SpeechCutOffByTheEndIsTranscribedInTheSameWindow) {
  // 12 s of the long-form file that end mid-sentence: Whisper closes "...Well, I would not" and
  // stops, so openai's seek rule decodes the last 2 s again in a second window. With
  // transcribe_to_the_end the one window goes on to the audio's end.
  AURIS_REQUIRE_SHARED_DATA(data);
  const std::string path = test::cached_model("tiny.en");
  if (path.empty()) GTEST_SKIP() << "model tiny.en not cached: run scripts/fetch_models.sh";
  const std::vector<float> audio = load_audio(data + "/audio/longform/hifitts-dev-concat.flac");
  const std::vector<float> buffer(audio.begin() + 28 * 16000, audio.begin() + 40 * 16000);
  auto transcribe = [&](bool to_the_end) {
    Transcriber transcriber(Model::load(path));
    TranscribeOptions o;
    o.word_timestamps = true;
    o.transcribe_to_the_end = to_the_end;
    const Transcript t = transcriber.transcribe(buffer, 16000, o);
    return std::make_pair(t, engine_counters(transcriber).encoder_windows);
  };
  const auto [openai, openai_windows] = transcribe(false);
  ASSERT_EQ(openai_windows, 2) << "the premise: openai's rule decodes a second window here";
  const auto [one, one_windows] = transcribe(true);
  EXPECT_EQ(one_windows, 1);
  EXPECT_NE(one.text.find("young man yet when it comes"), std::string::npos) << one.text;
  ASSERT_FALSE(one.segments.empty());
  for (const Segment& s : one.segments) EXPECT_EQ(s.seek, 0);
  EXPECT_GT(one.segments.back().words.back().end, 11.0);
}

}  // namespace
}  // namespace auris
