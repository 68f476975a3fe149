// get_speech_timestamps's logic: on the package's own probabilities against the package's spans
// (tests/fixtures/vad), and on synthetic probability sequences whose spans are worked out by hand
// from silero-vad 6.2.0's code.
#include "vad/speech_timestamps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "auris/error.h"
#include "vad/vad_fixtures_for_tests.h"

namespace auris {
namespace {

constexpr int64_t kW = 512;

// One window per character: 'S' speech (0.9), '.' silence (0.1), 'm' between the two thresholds
// (0.4: speech goes on, but does not start).
std::vector<float> windows(const std::string& pattern) {
  std::vector<float> p;
  for (char c : pattern) p.push_back(c == 'S' ? 0.9f : c == 'm' ? 0.4f : 0.1f);
  return p;
}

std::vector<SpeechSpan> spans(const std::string& pattern, SpeechTimestampsOptions o = {}, int64_t n = -1) {
  return speech_timestamps(windows(pattern), n < 0 ? static_cast<int64_t>(pattern.size()) * kW : n, o);
}

std::string repeat(char c, int n) { return std::string(static_cast<size_t>(n), c); }

// The package's spans from the package's probabilities, for every clip and option set.
TEST(SpeechTimestamps, EqualThePackagesOnItsOwnProbabilities) {
  const test::VadFixtures fixtures = test::vad_fixtures();
  ASSERT_EQ(fixtures.option_sets.size(), 7u);
  int spans_compared = 0;
  for (const test::VadFixtureClip& clip : fixtures.clips)
    for (const auto& [name, options] : fixtures.option_sets) {
      const std::vector<SpeechSpan>& expected = clip.timestamps.at(name);
      EXPECT_EQ(speech_timestamps(clip.probabilities, clip.num_samples, options), expected) << clip.key << " with " << name;
      spans_compared += static_cast<int>(expected.size());
    }
  EXPECT_GT(spans_compared, 300);
}

// The presets are the option sets the fixtures ran with, and on these clips faster-whisper's windows
// are the package's (no clip is a whole number of windows), so the presets themselves can be compared.
TEST(SpeechTimestamps, PresetsAreFasterWhispersOptions) {
  const test::VadFixtures fixtures = test::vad_fixtures();
  for (const auto& [name, preset] : {std::pair{"faster_whisper", SpeechTimestampsOptions::faster_whisper()},
                                     std::pair{"faster_whisper_batched", SpeechTimestampsOptions::faster_whisper_batched()}}) {
    SpeechTimestampsOptions as_run = fixtures.option_sets.at(name);
    EXPECT_TRUE(preset.faster_whisper_windows);
    as_run.faster_whisper_windows = true;
    EXPECT_EQ(preset.threshold, as_run.threshold);
    EXPECT_EQ(preset.neg_threshold, as_run.neg_threshold);
    EXPECT_EQ(preset.min_speech_duration_ms, as_run.min_speech_duration_ms);
    EXPECT_EQ(preset.max_speech_duration_s, as_run.max_speech_duration_s);
    EXPECT_EQ(preset.min_silence_duration_ms, as_run.min_silence_duration_ms);
    EXPECT_EQ(preset.speech_pad_ms, as_run.speech_pad_ms);
    EXPECT_EQ(preset.min_silence_at_max_speech_ms, as_run.min_silence_at_max_speech_ms);
    EXPECT_EQ(preset.cut_at_longest_silence, as_run.cut_at_longest_silence);
    for (const test::VadFixtureClip& clip : fixtures.clips) {
      ASSERT_EQ(vad_window_count(clip.num_samples, preset), static_cast<int64_t>(clip.probabilities.size())) << clip.key;
      EXPECT_EQ(speech_timestamps(clip.probabilities, clip.num_samples, preset), clip.timestamps.at(name)) << clip.key;
    }
  }
}

TEST(SpeechTimestamps, EmptyAudio) {
  EXPECT_TRUE(speech_timestamps({}, 0).empty());
  // faster-whisper pads empty audio to one window of zeros; speech there is no longer than 0 samples.
  const float speech[] = {0.9f};
  EXPECT_TRUE(speech_timestamps(speech, 0, SpeechTimestampsOptions::faster_whisper()).empty());
}

TEST(SpeechTimestamps, AllSpeechIsOneSpan) {
  EXPECT_EQ(spans(repeat('S', 20)), (std::vector<SpeechSpan>{{0, 20 * kW}}));
  // The last window partial: the span ends with the audio.
  EXPECT_EQ(spans(repeat('S', 20), {}, 20 * kW - 100), (std::vector<SpeechSpan>{{0, 20 * kW - 100}}));
}

TEST(SpeechTimestamps, SpeechAtTheVeryEnd) {
  // Starts at window 10 (5120), padded by 30 ms (480); kept to the end of the audio.
  EXPECT_EQ(spans(repeat('.', 10) + repeat('S', 10), {}, 20 * kW - 100), (std::vector<SpeechSpan>{{4640, 20 * kW - 100}}));
  // 7 windows (3584 samples) are not more than min_speech_duration_ms (250 ms, 4000 samples).
  EXPECT_TRUE(spans(repeat('.', 10) + repeat('S', 7)).empty());
  SpeechTimestampsOptions o;
  o.min_speech_duration_ms = 200;
  EXPECT_EQ(spans(repeat('.', 10) + repeat('S', 7), o), (std::vector<SpeechSpan>{{4640, 17 * kW}}));
}

TEST(SpeechTimestamps, SilenceEndsSpeechOnlyOnceLongEnough) {
  // min_silence_duration_ms 100 (1600 samples): the silence has lasted 2048 at its fifth window.
  const std::string five = repeat('S', 10) + repeat('.', 5) + repeat('S', 10);
  EXPECT_EQ(spans(five), (std::vector<SpeechSpan>{{0, 5120 + 480}, {7680 - 480, 25 * kW}}));
  const std::string four = repeat('S', 10) + repeat('.', 4) + repeat('S', 10);
  EXPECT_EQ(spans(four), (std::vector<SpeechSpan>{{0, 24 * kW}}));
}

TEST(SpeechTimestamps, ThresholdsHaveHysteresis) {
  // 0.4 neither starts speech (threshold 0.5) nor ends it (neg_threshold 0.35).
  EXPECT_EQ(spans("mmm" + repeat('S', 9) + repeat('m', 8)), (std::vector<SpeechSpan>{{3 * kW - 480, 20 * kW}}));
  SpeechTimestampsOptions o;
  o.neg_threshold = 0.45;
  EXPECT_EQ(spans("mmm" + repeat('S', 9) + repeat('m', 8), o), (std::vector<SpeechSpan>{{3 * kW - 480, 12 * kW + 480}}));
  // The default neg_threshold is at least 0.01: with threshold 0.1 it is 0.01, not -0.05.
  o = {};
  o.threshold = 0.1;
  o.min_silence_duration_ms = 0;
  o.min_speech_duration_ms = 0;
  const float p[] = {0.5f, 0.02f, 0.005f};
  EXPECT_EQ(speech_timestamps(p, 3 * kW, o), (std::vector<SpeechSpan>{{0, 2 * kW + 480}}));
}

TEST(SpeechTimestamps, ClosePaddingSplitsTheGap) {
  SpeechTimestampsOptions o;
  o.min_silence_duration_ms = 0;  // one silent window ends speech
  // Spans [0, 5120) and [5632, 10752): the 512-sample gap is under 2 * 480, so each takes half.
  EXPECT_EQ(spans(repeat('S', 10) + "." + repeat('S', 10), o), (std::vector<SpeechSpan>{{0, 5376}, {5376, 21 * kW}}));
}

// Overlong speech (max 2 s: cut once 30528 samples long, at window 60) with two silences inside it
// that do not end it (min_silence 1 s) but may take the cut (over 98 ms): 8 windows at 10-17 and 5
// windows at 28-32.
TEST(SpeechTimestamps, MaxDurationCutsAtASilence) {
  const std::string speech = repeat('S', 10) + repeat('.', 8) + repeat('S', 10) + repeat('.', 5) + repeat('S', 40);
  SpeechTimestampsOptions o;
  o.max_speech_duration_s = 2.0;
  o.min_silence_duration_ms = 1000;
  // At the longest silence (silero's default): [0, 5120), speech resumes at 9216.
  EXPECT_EQ(spans(speech, o), (std::vector<SpeechSpan>{{0, 5120 + 480}, {9216 - 480, 73 * kW}}));
  // At the last one (legacy, faster-whisper): [0, 14336), speech resumes at 16896.
  o.cut_at_longest_silence = false;
  EXPECT_EQ(spans(speech, o), (std::vector<SpeechSpan>{{0, 14336 + 480}, {16896 - 480, 73 * kW}}));
}

TEST(SpeechTimestamps, MaxDurationCutsWithoutASilence) {
  // No silence: cut at window 60 (30720); speech starts again at the next speech window (61).
  for (bool longest : {true, false}) {
    SpeechTimestampsOptions o;
    o.max_speech_duration_s = 2.0;
    o.cut_at_longest_silence = longest;
    EXPECT_EQ(spans(repeat('S', 80), o), (std::vector<SpeechSpan>{{0, 30976}, {30976, 80 * kW}})) << longest;
  }
}

TEST(SpeechTimestamps, FasterWhispersExtraWindow) {
  const SpeechTimestampsOptions fw = SpeechTimestampsOptions::faster_whisper();
  EXPECT_EQ(vad_window_count(1000, {}), 2);
  EXPECT_EQ(vad_window_count(1000, fw), 2);
  EXPECT_EQ(vad_window_count(1024, {}), 2);
  EXPECT_EQ(vad_window_count(1024, fw), 3);
  EXPECT_EQ(vad_window_count(0, fw), 1);
  // 64 windows of audio: speech, then 63 of silence, 512 samples short of faster-whisper's 2 s
  // min_silence. Its extra window of zeros completes the silence, which ends the speech at 512.
  const std::string audio = "S" + repeat('.', 63);
  SpeechTimestampsOptions silero_windows = fw;
  silero_windows.faster_whisper_windows = false;
  EXPECT_EQ(spans(audio, silero_windows), (std::vector<SpeechSpan>{{0, 64 * kW}}));
  EXPECT_EQ(spans(audio + ".", fw, 64 * kW), (std::vector<SpeechSpan>{{0, 512 + 6400}}));
  EXPECT_NE(test::error_of([&] { spans(audio, fw); }).find("65"), std::string::npos);  // the count it expects
}

TEST(SpeechTimestamps, OptionsOutOfRangeAreNamed) {
  auto error = [](auto change) {
    SpeechTimestampsOptions o;
    change(o);
    return test::error_of([&] { validate(o); });
  };
  EXPECT_EQ(error([](auto&) {}), "(no error)");
  EXPECT_EQ(error([](auto& o) { o = SpeechTimestampsOptions::faster_whisper_batched(); }), "(no error)");
  EXPECT_NE(error([](auto& o) { o.threshold = 1.5; }).find("threshold = 1.5 is out of range: allowed 0 to 1"), std::string::npos);
  EXPECT_NE(error([](auto& o) { o.threshold = NAN; }).find("threshold"), std::string::npos);
  EXPECT_NE(error([](auto& o) { o.neg_threshold = -0.1; }).find("neg_threshold"), std::string::npos);
  EXPECT_NE(error([](auto& o) { o.min_speech_duration_ms = -1; }).find("min_speech_duration_ms = -1 ms"), std::string::npos);
  EXPECT_NE(error([](auto& o) { o.min_silence_duration_ms = -5; }).find("min_silence_duration_ms"), std::string::npos);
  EXPECT_NE(error([](auto& o) { o.speech_pad_ms = 4'000'000; }).find("speech_pad_ms"), std::string::npos);
  EXPECT_NE(error([](auto& o) { o.min_silence_at_max_speech_ms = -1; }).find("min_silence_at_max_speech_ms"), std::string::npos);
  // 512 samples plus twice 30 ms is 0.092 s: a limit at or under it could never hold any speech.
  const std::string e = error([](auto& o) { o.max_speech_duration_s = 0.09; });
  EXPECT_NE(e.find("max_speech_duration_s = 0.09 s is out of range: allowed more than 0.092 s"), std::string::npos) << e;
  EXPECT_NE(error([](auto& o) { o.max_speech_duration_s = NAN; }).find("max_speech_duration_s"), std::string::npos);
  SpeechTimestampsOptions bad;
  bad.threshold = 2;
  EXPECT_THROW(spans("SS", bad), Error);
}

}  // namespace
}  // namespace auris
