// Cancelling from a callback (TranscribeOptions::on_segment, on_progress): auris::Cancelled thrown
// there leaves transcribe() before the next window is encoded, and the Transcriber still works.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "auris/audio.h"
#include "api/engine_access.h"
#include "auris/error.h"
#include "auris/transcribe.h"
#include "test_support.h"

namespace auris {
namespace {

static_assert(std::is_base_of_v<Error, Cancelled>, "code that reports every auris::Error must see a cancel too");

// jfk, 20 s of silence, jfk again: 42 s, so more than one window, none of them repetitive (which
// would make the temperature fallback decode it six times).
std::vector<float> two_windows_of_speech(const std::string& data) {
  const std::vector<float> jfk = load_audio(data + "/audio/jfk.flac");
  std::vector<float> samples = jfk;
  samples.resize(samples.size() + 20 * 16000, 0.0f);
  samples.insert(samples.end(), jfk.begin(), jfk.end());
  return samples;
}

class TranscriberCancel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string data = test::shared_data_dir();
    const std::string path = test::cached_model("tiny.en");
    if (data.empty() || path.empty()) return;
    model_ = Model::load(path);
    samples_ = two_windows_of_speech(data);
  }
  static void TearDownTestSuite() { model_.reset(); }
  void SetUp() override {
    if (test::shared_data_dir().empty()) GTEST_SKIP() << "../shared/data not found (set AURIS_TEST_DATA to the test data)";
    if (!model_) GTEST_SKIP() << "model tiny.en not cached: run scripts/fetch_models.sh";
  }
  static std::shared_ptr<const Model> model_;
  static std::vector<float> samples_;
};
std::shared_ptr<const Model> TranscriberCancel::model_;
std::vector<float> TranscriberCancel::samples_;

TEST_F(TranscriberCancel, FromOnProgressStopsBeforeTheNextWindow) {
  Transcriber t(model_);
  TranscribeOptions options;
  int calls = 0;
  options.on_progress = [&](double, double) {
    ++calls;
    throw Cancelled();
  };
  EXPECT_THROW(t.transcribe(samples_, 16000, options), Cancelled);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(engine_counters(t).encoder_windows, 1) << "no window may be encoded after the cancel";

  // The same Transcriber transcribes the whole recording afterwards, in more than one window.
  TranscribeOptions counting;
  int windows = 0;
  counting.on_progress = [&](double, double) { ++windows; };
  const Transcript whole = t.transcribe(samples_, 16000, counting);
  EXPECT_GE(windows, 2);
  EXPECT_NE(whole.text.find("ask not what your country can do for you"), std::string::npos) << whole.text;
}

// The work done before a cancel comes with it (Cancelled::partial): the segments decided, on the
// audio's timeline with VAD too, their text, the language and the durations.
TEST_F(TranscriberCancel, TheWorkDoneBeforeACancelComesWithIt) {
  Transcriber t(model_);
  TranscribeOptions options;
  std::vector<Segment> seen;
  options.on_segment = [&](const Segment& s) { seen.push_back(s); };
  options.on_progress = [&](double, double) { throw Cancelled(); };
  try {
    t.transcribe(samples_, 16000, options);
    FAIL() << "not cancelled";
  } catch (const Cancelled& cancelled) {
    ASSERT_NE(cancelled.partial, nullptr);
    const Transcript& partial = *cancelled.partial;
    ASSERT_FALSE(seen.empty());
    ASSERT_EQ(partial.segments.size(), seen.size());
    std::string text;
    for (size_t i = 0; i < seen.size(); ++i) {
      EXPECT_EQ(partial.segments[i].text, seen[i].text);
      text += seen[i].text;
    }
    EXPECT_EQ(partial.text, text);
    EXPECT_NE(partial.text.find("ask not what your country"), std::string::npos) << partial.text;
    EXPECT_EQ(partial.language, "en");
    EXPECT_NEAR(partial.duration, 42.0, 0.1);
  }

  // With VAD: 20 s of silence before jfk; the partial's times are the recording's.
  const std::vector<float> jfk(samples_.begin(), samples_.begin() + 11 * 16000);
  std::vector<float> padded(20 * 16000, 0.0f);
  padded.insert(padded.end(), jfk.begin(), jfk.end());
  options.vad = VadParameters{};
  options.vad->model = test::shared_data_dir() + "/vad/for-tests-silero-v6.2.0-ggml.bin";
  seen.clear();
  try {
    t.transcribe(padded, 16000, options);
    FAIL() << "not cancelled";
  } catch (const Cancelled& cancelled) {
    ASSERT_NE(cancelled.partial, nullptr);
    ASSERT_FALSE(cancelled.partial->segments.empty());
    EXPECT_GE(cancelled.partial->segments.front().start, 19.5);
    EXPECT_EQ(cancelled.partial->segments.front().start, seen.front().start);
    EXPECT_NEAR(cancelled.partial->duration, 31.0, 0.1);
    EXPECT_LT(cancelled.partial->duration_after_vad, 12.0);
  }
}

TEST_F(TranscriberCancel, FromOnSegmentEndsTheTranscription) {
  Transcriber t(model_);
  TranscribeOptions options;
  std::vector<std::string> seen;
  options.on_segment = [&](const Segment& s) {
    seen.push_back(s.text);
    throw Cancelled();
  };
  try {
    t.transcribe(samples_, 16000, options);
    ADD_FAILURE() << "the transcription was not cancelled";
  } catch (const Error& e) {  // caught as the Error it also is
    EXPECT_NE(dynamic_cast<const Cancelled*>(&e), nullptr) << e.what();
    EXPECT_STREQ(e.what(), "the transcription was cancelled");
  }
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(engine_counters(t).encoder_windows, 1);
}

}  // namespace
}  // namespace auris
