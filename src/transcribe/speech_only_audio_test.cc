// The speech of a recording, streamed: detect_speech() over a decoding pass finds what it finds over
// the samples in memory, SpeechOnlyAudio's passes are collect_speech() of the recording, and the
// log-mel streamed from them is bit for bit the in-memory log-mel of the collected speech.
#include "transcribe/speech_only_audio.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "auris/audio.h"
#include "audio/mel_source.h"
#include "audio/streaming_mel.h"
#include "auris/error.h"
#include "test_support.h"
#include "vad/speech_chunks.h"
#include "vad/vad_fixtures_for_tests.h"

namespace auris {
namespace {

// A recording in memory, handed out in reads of at most `block` samples.
class VectorSource : public SampleSource {
 public:
  VectorSource(std::vector<float> samples, size_t block) : samples_(std::move(samples)), block_(block) {}
  std::unique_ptr<SamplePass> open() override {
    ++opened;
    struct Pass : SamplePass {
      const std::vector<float>& samples;
      size_t block, at = 0;
      Pass(const std::vector<float>& s, size_t b) : samples(s), block(b) {}
      size_t read(std::vector<float>& out, size_t max_samples) override {
        const size_t n = std::min({block, max_samples, samples.size() - at});
        out.insert(out.end(), samples.begin() + static_cast<long>(at), samples.begin() + static_cast<long>(at + n));
        at += n;
        return n;
      }
    };
    return std::make_unique<Pass>(samples_, block_);
  }
  const std::string& name() const override { return name_; }
  int opened = 0;

 private:
  std::vector<float> samples_;
  size_t block_;
  std::string name_ = "the test vector";
};

std::vector<float> read_all(SamplePass& pass, size_t max_samples) {
  std::vector<float> out;
  while (pass.read(out, max_samples) > 0) {
  }
  return out;
}

std::vector<float> ramp(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 1.0f);
  return v;
}

// Spans at the very start and end, inside one read, across reads, empty, and adjacent.
TEST(SpeechOnlyAudio, PassesAreTheSpansEndToEnd) {
  const std::vector<float> recording = ramp(100000);
  const std::vector<SpeechSpan> spans = {{0, 10}, {10, 20}, {500, 500}, {16380, 16390}, {20000, 70000}, {99990, 100000}};
  const std::vector<float> expected = collect_speech(recording, spans);
  for (size_t block : {size_t{1}, size_t{7}, size_t{1} << 14, size_t{1} << 20}) {
    auto source = std::make_unique<VectorSource>(recording, block);
    VectorSource& inner = *source;
    SpeechOnlyAudio speech(std::move(source), spans);
    EXPECT_EQ(speech.name(), "the test vector");
    for (size_t max_samples : {size_t{1}, size_t{333}, size_t{1} << 14}) {
      const std::unique_ptr<SamplePass> pass = speech.open();
      EXPECT_EQ(read_all(*pass, max_samples), expected) << "reads of " << block << " and " << max_samples;
    }
    EXPECT_EQ(inner.opened, 3);
  }
  SpeechOnlyAudio nothing(std::make_unique<VectorSource>(recording, 100), {});
  EXPECT_TRUE(read_all(*nothing.open(), 100).empty());
}

TEST(SpeechOnlyAudio, ARecordingShorterThanItsSpansHasChanged) {
  SpeechOnlyAudio speech(std::make_unique<VectorSource>(ramp(1000), 100), {{900, 1200}});
  const std::string e = test::error_of([&] { read_all(*speech.open(), 64); });
  EXPECT_NE(e.find("the test vector changed while it was being read"), std::string::npos) << e;
  EXPECT_NE(test::error_of([&] { SpeechOnlyAudio(std::make_unique<VectorSource>(ramp(10), 1), {{5, 8}, {6, 9}}); })
                .find("not overlap"),
            std::string::npos);
}

class SpeechDetectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = test::shared_data_dir();
    if (data_.empty()) GTEST_SKIP() << "../shared/data not found (set AURIS_TEST_DATA to the test data)";
    vad_ = std::make_unique<SileroVad>(test::vad_model_file(data_));
  }
  std::string data_;
  std::unique_ptr<SileroVad> vad_;
};

// The file's pass and the samples in memory give faster-whisper's get_speech_timestamps: the
// probabilities of n / 512 + 1 windows, then the spans.
TEST_F(SpeechDetectionTest, AFilePassFindsWhatTheSamplesInMemoryGive) {
  const std::string path = data_ + "/audio/longform/hifitts-dev-concat.flac";
  const std::vector<float> samples = load_audio(path);
  SpeechTimestampsOptions options = SpeechTimestampsOptions::faster_whisper();
  options.min_silence_duration_ms = 500;  // several spans
  const std::vector<SpeechSpan> expected = speech_timestamps(
      vad_->speech_probabilities(samples, vad_window_count(static_cast<int64_t>(samples.size()), options)),
      static_cast<int64_t>(samples.size()), options);
  ASSERT_GE(expected.size(), 5u);

  const SpeechDetection in_memory = detect_speech(*vad_, samples, options);
  EXPECT_EQ(in_memory.spans, expected);
  EXPECT_EQ(in_memory.num_samples, static_cast<int64_t>(samples.size()));
  AudioFileSource file(path);
  const std::unique_ptr<SamplePass> pass = file.open();
  const SpeechDetection streamed = detect_speech(*vad_, *pass, options);
  EXPECT_EQ(streamed.spans, expected);
  EXPECT_EQ(streamed.num_samples, in_memory.num_samples);
  EXPECT_EQ(streamed.speech_samples(), static_cast<int64_t>(collect_speech(samples, expected).size()));

  // The log-mel of the speech read from the file again, kept or (keeping nothing) from a second
  // reading, is the in-memory log-mel of the collected samples.
  InMemoryMel collected(collect_speech(samples, expected), 80);
  for (size_t keep_bytes : {StreamingMel::kDefaultKeepBytes, size_t{0}}) {
    StreamingMel mel(std::make_unique<SpeechOnlyAudio>(std::make_unique<AudioFileSource>(path), expected), 80, keep_bytes);
    ASSERT_EQ(mel.content_frames(), collected.content_frames());
    EXPECT_EQ(mel.num_samples(), collected.num_samples());
    for (int offset = 0; offset < collected.content_frames(); offset += 2900) {
      const LogMel a = mel.window(offset, kChunkFrames), b = collected.window(offset, kChunkFrames);
      ASSERT_EQ(a.data.size(), b.data.size());
      EXPECT_EQ(std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)), 0)
          << "window at " << offset << ", keeping " << keep_bytes << " bytes";
    }
  }
}

// Standard input is read once: the VAD's pass spools it, the log-mel's passes replay the spool.
TEST_F(SpeechDetectionTest, StandardInputIsReplayedFromItsSpool) {
  const std::string path = data_ + "/audio/jfk.flac";
  const std::vector<float> samples = load_audio(path);
  const SpeechTimestampsOptions options = SpeechTimestampsOptions::faster_whisper();
  std::vector<float> first, second;
  SpeechDetection speech;
  const std::string e = test::error_of_with_stdin(path, [&] {
    auto source = std::make_unique<AudioFileSource>("-");
    EXPECT_EQ(source->name(), "standard input");
    const std::unique_ptr<SamplePass> vad_pass = source->open();
    EXPECT_NE(test::error_of([&] { source->open(); }).find("read it to the end"), std::string::npos);
    speech = detect_speech(*vad_, *vad_pass, options);
    SpeechOnlyAudio speech_only(std::move(source), speech.spans);
    first = read_all(*speech_only.open(), 1000);
    second = read_all(*speech_only.open(), 1 << 14);
  });
  ASSERT_EQ(e, "(no error)");
  EXPECT_EQ(speech.spans, detect_speech(*vad_, samples, options).spans);
  EXPECT_EQ(first, collect_speech(samples, speech.spans));
  EXPECT_EQ(second, first);
}

}  // namespace
}  // namespace auris
