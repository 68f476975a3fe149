// The native Silero VAD against the silero-vad package (tests/fixtures/vad, from
// tools/reference/make_vad_fixtures.py) on every fixture clip: the window probabilities, and the
// speech timestamps computed from them.
#include "vad/silero_vad.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "auris/error.h"
#include "vad/speech_timestamps.h"
#include "vad/vad_fixtures_for_tests.h"

namespace auris {
namespace {

float max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  float m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

class SileroVadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = test::shared_data_dir();
    if (data_.empty()) GTEST_SKIP() << "../shared/data not found (set AURIS_TEST_DATA to the test data)";
  }
  // The audio of a fixture clip, checked to be the samples the reference saw.
  std::vector<float> audio_of(const test::VadFixtureClip& clip) const {
    std::vector<float> audio = test::vad_fixture_audio(clip, data_);
    EXPECT_EQ(static_cast<int64_t>(audio.size()), clip.num_samples) << clip.key;
    EXPECT_DOUBLE_EQ(std::accumulate(audio.begin(), audio.end(), 0.0), clip.sum) << clip.key;
    return audio;
  }
  std::string data_;
};

// The network is the package's, given the weights the ggml file holds: within 1e-4 of the package's
// model with its conv weights rounded to fp16 as whisper.cpp stored them. The stock package (fp32
// weights) differs from that by the rounding alone, at most 4.8e-3 on these clips.
TEST_F(SileroVadTest, ProbabilitiesMatchThePackageOnEveryFixtureClip) {
  const SileroVad vad(test::vad_model_file(data_));
  const test::VadFixtures fixtures = test::vad_fixtures();
  ASSERT_GE(fixtures.clips.size(), 13u);
  for (const test::VadFixtureClip& clip : fixtures.clips) {
    const std::vector<float> probabilities = vad.speech_probabilities(audio_of(clip));
    ASSERT_EQ(probabilities.size(), clip.probabilities.size()) << clip.key;
    const float to_same_weights = max_abs_diff(probabilities, clip.probabilities_ggml_weights);
    const float to_package = max_abs_diff(probabilities, clip.probabilities);
    std::printf("  %-30s %5zu windows: max |p - package| %.2e, with the file's fp16 weights %.2e\n", clip.key.c_str(),
                probabilities.size(), to_package, to_same_weights);
    EXPECT_LE(to_same_weights, 1e-4f) << clip.key;
    EXPECT_LE(to_package, 5e-3f) << clip.key;
  }
}

// End to end: audio -> native probabilities -> speech spans, equal to the package's on every clip and
// option set (silero's defaults, faster-whisper's presets, cuts at 3 s and 1 s).
TEST_F(SileroVadTest, SpeechTimestampsMatchThePackageEndToEnd) {
  const SileroVad vad(test::vad_model_file(data_));
  const test::VadFixtures fixtures = test::vad_fixtures();
  int compared = 0;
  for (const test::VadFixtureClip& clip : fixtures.clips) {
    const std::vector<float> audio = audio_of(clip);
    const std::vector<float> probabilities = vad.speech_probabilities(audio);
    for (const auto& [name, options] : fixtures.option_sets) {
      EXPECT_EQ(speech_timestamps(probabilities, clip.num_samples, options), clip.timestamps.at(name))
          << clip.key << " with " << name;
      ++compared;
    }
  }
  EXPECT_GE(compared, 13 * 7);
}

// One window at a time (the streaming path) gives what the batched pass gives; reset starts afresh.
TEST_F(SileroVadTest, WindowByWindowEqualsTheBatchedPass) {
  const SileroVad vad(test::vad_model_file(data_));
  std::vector<float> audio = load_audio(data_ + "/audio/jfk.flac");
  audio.resize(audio.size() / SileroVad::kWindow * SileroVad::kWindow);
  const std::vector<float> batched = vad.speech_probabilities(audio);
  SileroVadState state;
  std::vector<float> streamed;
  for (size_t at = 0; at < audio.size(); at += SileroVad::kWindow)
    streamed.push_back(vad.process_window(std::span(audio).subspan(at, SileroVad::kWindow), state));
  ASSERT_EQ(streamed.size(), batched.size());
  EXPECT_LE(max_abs_diff(streamed, batched), 1e-5f);
  EXPECT_GT(*std::max_element(batched.begin(), batched.end()), 0.9f);  // jfk is speech

  // Without the reset, the second pass starts from the state the first left.
  const float carried = vad.process_window(std::span(audio).subspan(0, SileroVad::kWindow), state);
  state.reset();
  const float fresh = vad.process_window(std::span(audio).subspan(0, SileroVad::kWindow), state);
  EXPECT_NEAR(fresh, batched[0], 1e-5f);
  EXPECT_GT(std::abs(carried - fresh), 1e-4f);
}

// faster-whisper's extra window (a whole one of zeros past audio that fills its windows exactly).
TEST_F(SileroVadTest, WindowsPastTheAudioSeeZeros) {
  const SileroVad vad(test::vad_model_file(data_));
  std::vector<float> audio = load_audio(data_ + "/audio/jfk.flac");
  audio.resize(20 * SileroVad::kWindow);
  const std::vector<float> exact = vad.speech_probabilities(audio);
  const std::vector<float> extra = vad.speech_probabilities(audio, 21);
  ASSERT_EQ(exact.size(), 20u);
  ASSERT_EQ(extra.size(), 21u);
  EXPECT_LE(max_abs_diff(exact, std::vector<float>(extra.begin(), extra.end() - 1)), 1e-6f);
  audio.resize(21 * SileroVad::kWindow, 0.0f);
  EXPECT_NEAR(extra.back(), vad.speech_probabilities(audio).back(), 1e-6f);
  EXPECT_NE(test::error_of([&] { vad.speech_probabilities(audio, 20); }).find("cannot cover"), std::string::npos);
}

// A file decoded block by block: pushed in pieces of any size (here across the 256-window blocks,
// of jfk's 344 windows), the stream gives speech_probabilities()'s values bit for bit, with the
// extra window faster-whisper asks for too.
TEST_F(SileroVadTest, StreamInPiecesEqualsTheWholePass) {
  const SileroVad vad(test::vad_model_file(data_));
  const std::vector<float> audio = load_audio(data_ + "/audio/jfk.flac");
  const int64_t windows = static_cast<int64_t>(audio.size()) / SileroVad::kWindow + 1;
  const std::vector<float> whole = vad.speech_probabilities(audio, windows);
  for (size_t piece : {size_t{1} << 14, size_t{511}, size_t{256} * 512 + 7, audio.size()}) {
    SpeechProbabilityStream stream(vad);
    for (size_t at = 0; at < audio.size(); at += piece)
      stream.push(std::span(audio).subspan(at, std::min(piece, audio.size() - at)));
    EXPECT_EQ(stream.samples(), static_cast<int64_t>(audio.size()));
    const std::vector<float> streamed = stream.finish(windows);
    ASSERT_EQ(streamed.size(), whole.size()) << piece;
    EXPECT_EQ(std::memcmp(streamed.data(), whole.data(), whole.size() * sizeof(float)), 0) << "pieces of " << piece;
    EXPECT_NE(test::error_of([&] { stream.finish(); }).find("after finish()"), std::string::npos);
  }
  SpeechProbabilityStream short_stream(vad);
  short_stream.push(std::span(audio).subspan(0, 1000));
  EXPECT_NE(test::error_of([&] { short_stream.finish(1); }).find("cannot cover"), std::string::npos);
}

TEST_F(SileroVadTest, EmptyAudioAndWrongWindows) {
  const SileroVad vad(test::vad_model_file(data_));
  EXPECT_TRUE(vad.speech_probabilities({}).empty());
  SileroVadState state;
  const std::vector<float> short_window(500, 0.0f);
  EXPECT_NE(test::error_of([&] { vad.process_window(short_window, state); }).find("windows of 512 samples"),
            std::string::npos);
}

}  // namespace
}  // namespace auris
