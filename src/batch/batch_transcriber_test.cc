// The batched pipeline: files decoded together give what each gives alone; long recordings come
// back in order on their own timeline; VAD chunks map back to the original audio; packed short files
// cost fewer windows and keep their words; bad files and bad options fail alone and clearly; a model
// still loading is waited for, and its loading error reported.
#include "api/engine_access.h"
#include "auris/batch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "auris/audio.h"
#include "auris/error.h"
#include "test_support.h"
#include "vad/vad_fixtures_for_tests.h"

namespace auris {
namespace {

std::set<std::string> words_of(const std::string& text) {
  std::set<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) {
    std::string letters;
    for (char c : w)
      if (std::isalpha(static_cast<unsigned char>(c))) letters += static_cast<char>(std::tolower(c));
    if (!letters.empty()) words.insert(letters);
  }
  return words;
}

class BatchTranscriberTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string path = test::cached_model("tiny.en");
    data_ = test::shared_data_dir();
    if (path.empty() || data_.empty()) return;
    model_ = Model::load(path);
    for (const char* name : {"presentpictureofnsw_02_mann_0532", "swag_06_tompkins_0883", "roots_19_morris_0392",
                             "shortstories_06_gaskell_0370", "bambatse_13_haggard_0083"})
      clips_.push_back(data_ + "/audio/hifitts-6097/audio/" + name + ".wav");
  }
  static void TearDownTestSuite() { model_.reset(); }
  void SetUp() override {
    if (!model_) GTEST_SKIP() << "needs ../shared/data and tiny.en (scripts/fetch_models.sh)";
  }
  static TranscribeOptions greedy() {
    TranscribeOptions o;
    o.decoding.beam_size.reset();
    return o;
  }
  // Every file's transcript (or error) by index.
  static std::map<size_t, std::string> run(BatchTranscriber& batch, const std::vector<std::string>& files,
                                           const TranscribeOptions& options, std::vector<Transcript>* transcripts = nullptr) {
    std::map<size_t, std::string> out;
    if (transcripts) transcripts->assign(files.size(), {});
    batch.transcribe_files(
        files, options,
        [&](size_t i, Transcript t) {
          out[i] = t.text;
          if (transcripts) (*transcripts)[i] = std::move(t);
        },
        [&](size_t i, const std::string& error) { out[i] = "error: " + error; });
    return out;
  }

  static std::shared_ptr<const Model> model_;
  static std::string data_;
  static std::vector<std::string> clips_;
};
std::shared_ptr<const Model> BatchTranscriberTest::model_;
std::string BatchTranscriberTest::data_;
std::vector<std::string> BatchTranscriberTest::clips_;

TEST_F(BatchTranscriberTest, FilesDecodedTogetherGetWhatEachGetsAlone) {
  BatchTranscriber batch(model_, 3);
  std::vector<Transcript> together;
  const std::map<size_t, std::string> texts = run(batch, clips_, greedy(), &together);
  ASSERT_EQ(texts.size(), clips_.size());
  Transcriber alone(model_);
  for (size_t i = 0; i < clips_.size(); ++i) {
    const Transcript t = alone.transcribe(load_audio(clips_[i]), 16000, greedy());
    EXPECT_EQ(together[i].text, t.text) << clips_[i];
    ASSERT_EQ(together[i].segments.size(), t.segments.size()) << clips_[i];
    for (size_t s = 0; s < t.segments.size(); ++s) {
      EXPECT_EQ(together[i].segments[s].tokens, t.segments[s].tokens);
      EXPECT_DOUBLE_EQ(together[i].segments[s].start, t.segments[s].start);
    }
  }
}

// Files taken a group at a time (two here, 128 by default) come back under their own indices with
// what they get all together.
TEST_F(BatchTranscriberTest, FilesInGroupsGetWhatTheyGetAllTogether) {
  BatchTranscriber all(model_, 3);
  const std::map<size_t, std::string> together = run(all, clips_, greedy());
  BatchTranscriber grouped(model_, 3);
  EngineAccess::set_files_at_once(grouped, 2);
  std::vector<std::string> files = clips_;
  files.insert(files.begin() + 2, data_ + "/no-such-file.wav");
  const std::map<size_t, std::string> in_groups = run(grouped, files, greedy());
  ASSERT_EQ(in_groups.size(), files.size());
  EXPECT_EQ(in_groups.at(2).rfind("error: ", 0), 0u) << in_groups.at(2);
  for (size_t i = 0; i < clips_.size(); ++i) EXPECT_EQ(in_groups.at(i < 2 ? i : i + 1), together.at(i)) << clips_[i];
}

TEST_F(BatchTranscriberTest, ALongRecordingComesBackInOrderOnItsTimeline) {
  std::vector<float> audio = load_audio(data_ + "/audio/longform/hifitts-dev-concat.flac");
  audio.resize(65 * 16000);  // three 30-s windows, the last one short
  BatchTranscriber batch(model_, 3);
  const Transcript t = batch.transcribe(audio, 16000, greedy());
  ASSERT_GE(t.segments.size(), 6u);
  EXPECT_DOUBLE_EQ(t.duration, 65.0);
  EXPECT_GE(t.segments.back().start, 60.0) << "the last window's text is there";
  for (size_t i = 0; i < t.segments.size(); ++i) {
    EXPECT_EQ(t.segments[i].id, static_cast<int>(i));
    EXPECT_LE(t.segments[i].end, 65.0 + 1e-9);
    if (i > 0) {
      EXPECT_GE(t.segments[i].start, t.segments[i - 1].start);
    }
  }
  EXPECT_GE(engine_counters(batch).encoder_windows, 3);
}

TEST_F(BatchTranscriberTest, VadChunksMapBackToTheRecording) {
  const std::vector<float> jfk = load_audio(data_ + "/audio/jfk.flac");
  std::vector<float> audio = jfk;
  audio.insert(audio.end(), 40 * 16000, 0.0f);  // 40 s of silence, then jfk again
  audio.insert(audio.end(), jfk.begin(), jfk.end());
  TranscribeOptions options = greedy();
  options.vad = batched_vad_parameters();
  options.vad->model = test::vad_model_file(data_);
  options.word_timestamps = true;
  BatchTranscriber batch(model_, 2);
  const Transcript t = batch.transcribe(audio, 16000, options);
  EXPECT_NEAR(t.duration, 62.0, 0.01);
  EXPECT_LT(t.duration_after_vad, 30.0);
  const double second_start = (jfk.size() + 40 * 16000) / 16000.0;
  int before = 0, after = 0;
  for (const Segment& s : t.segments)
    for (const Word& w : s.words) {
      EXPECT_TRUE(w.end <= 11.5 || w.start >= second_start - 0.5) << w.word << " at " << w.start << " lies in the silence";
      (w.start < second_start - 0.5 ? before : after)++;
    }
  EXPECT_GE(before, 15);
  EXPECT_GE(after, 15);
}

TEST_F(BatchTranscriberTest, PackedShortFilesShareWindowsAndKeepTheirWords) {
  BatchTranscriber unpacked(model_, 4);
  const std::map<size_t, std::string> plain = run(unpacked, clips_, greedy());
  BatchTranscriber packed(model_, 4);
  packed.set_packing(true);
  std::vector<Transcript> transcripts;
  const std::map<size_t, std::string> texts = run(packed, clips_, greedy(), &transcripts);
  EXPECT_LT(engine_counters(packed).encoder_windows, engine_counters(unpacked).encoder_windows) << "packing saves encoder passes";
  for (size_t i = 0; i < clips_.size(); ++i) {
    const std::set<std::string> expected = words_of(plain.at(i)), got = words_of(texts.at(i));
    size_t shared = 0;
    for (const std::string& w : got) shared += expected.count(w);
    EXPECT_GE(shared * 10, expected.size() * 8) << "packed: " << texts.at(i) << "\nalone: " << plain.at(i);
    EXPECT_LE(got.size(), expected.size() + 2) << "another file's words: " << texts.at(i);
    const double duration = load_audio(clips_[i]).size() / 16000.0;
    for (const Segment& s : transcripts[i].segments) {
      EXPECT_GE(s.start, 0.0);
      EXPECT_LE(s.end, duration + 0.5);
      EXPECT_TRUE(s.words.empty()) << "words were not asked for";
    }
  }
}

// Without timestamps, the words that split a packed window would have openai's seek loop decode
// again from the last word's end: a second encoder pass over the last clip's tail, where base made
// up text. The five clips fit one window, so they cost one pass.
TEST_F(BatchTranscriberTest, APackedWindowIsEncodedOnce) {
  BatchTranscriber packed(model_, 4);
  packed.set_packing(true);
  TranscribeOptions options = greedy();
  options.decoding.without_timestamps = true;
  const std::map<size_t, std::string> texts = run(packed, clips_, options);
  EXPECT_EQ(engine_counters(packed).encoder_windows, 1);
  for (const auto& [i, text] : texts) EXPECT_FALSE(text.empty() || text.starts_with("error")) << i << ": " << text;
}

TEST_F(BatchTranscriberTest, ABadFileFailsAloneAndSilenceIsEmpty) {
  const std::string dir = test::temp_dir();
  const std::string silence = dir + "/silence.wav";
  test::write_wav(silence, std::vector<float>(3 * 16000, 0.0f));
  const std::vector<std::string> files = {clips_[0], dir + "/missing.wav", silence, clips_[1]};
  BatchTranscriber batch(model_, 2);
  std::vector<Transcript> transcripts;
  const std::map<size_t, std::string> out = run(batch, files, greedy(), &transcripts);
  ASSERT_EQ(out.size(), files.size());
  EXPECT_EQ(out.at(1).rfind("error: ", 0), 0u) << out.at(1);
  EXPECT_NE(out.at(1).find("missing.wav"), std::string::npos) << out.at(1);
  EXPECT_TRUE(transcripts[2].segments.empty());
  EXPECT_DOUBLE_EQ(transcripts[2].duration, 3.0);
  EXPECT_FALSE(out.at(0).empty());
  EXPECT_FALSE(out.at(3).empty());
}

TEST_F(BatchTranscriberTest, BadSizesAndOptionsAreRefusedBeforeWork) {
  EXPECT_THROW(BatchTranscriber(model_, 0), Error);
  EXPECT_THROW(BatchTranscriber(model_, -3), Error);
  EXPECT_NE(test::error_of([&] { BatchTranscriber(model_, 100000); }).find("1 to 256"), std::string::npos);
  BatchTranscriber batch(model_, 2);
  TranscribeOptions o;
  o.temperatures.clear();
  EXPECT_THROW(run(batch, clips_, o), Error);
  o = greedy();
  o.vad = VadParameters();
  o.vad->threshold = 1.5;
  EXPECT_NE(test::error_of([&] { run(batch, clips_, o); }).find("threshold"), std::string::npos);
  EXPECT_EQ(engine_counters(batch).encoder_windows, 0);
  EXPECT_THROW(batch.transcribe(std::vector<float>(100, 0.1f), 8000, greedy()), Error);
}

TEST_F(BatchTranscriberTest, AModelStillLoadingIsWaitedForAndGivesTheSameText) {
  std::promise<std::shared_ptr<const Model>> loading;
  BatchTranscriber pending(loading.get_future().share(), 2);
  // Resolved while the files are being read: the transcription waits for it, then decodes as usual.
  std::thread load([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    loading.set_value(model_);
  });
  const std::vector<std::string> files(clips_.begin(), clips_.begin() + 2);
  const std::map<size_t, std::string> late = run(pending, files, greedy());
  load.join();
  BatchTranscriber ready(model_, 2);
  EXPECT_EQ(late, run(ready, files, greedy()));
  EXPECT_EQ(engine_counters(pending).encoder_windows, 2);
}

TEST_F(BatchTranscriberTest, AModelThatFailedToLoadIsReportedByTheTranscription) {
  std::promise<std::shared_ptr<const Model>> loading;
  loading.set_exception(std::make_exception_ptr(Error("model file is truncated")));
  BatchTranscriber batch(loading.get_future().share(), 2);
  EXPECT_NE(test::error_of([&] { run(batch, clips_, greedy()); }).find("truncated"), std::string::npos);
  std::promise<std::shared_ptr<const Model>> none;
  none.set_value(nullptr);
  BatchTranscriber empty(none.get_future().share(), 2);
  EXPECT_NE(test::error_of([&] { run(empty, clips_, greedy()); }).find("no model"), std::string::npos);
  EXPECT_THROW(BatchTranscriber(std::shared_future<std::shared_ptr<const Model>>(), 2), Error);
}

}  // namespace
}  // namespace auris
