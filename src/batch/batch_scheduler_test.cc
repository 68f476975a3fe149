// The scheduler behind `auris serve`: a request's transcript equals the batch transcriber's for the
// same file, requests submitted while others run join the batch and come back whole, segments
// arrive in order before the end, a cancelled request stops, and bad audio fails at submit.
#include "batch/batch_scheduler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "audio/sample_source.h"
#include "auris/batch.h"
#include "auris/error.h"
#include "test_support.h"

namespace auris {
namespace {

struct Outcome {
  std::vector<Segment> streamed;
  Transcript transcript;
  std::string error;
};

// Submits a file and returns a future of its outcome.
std::future<Outcome> submit(BatchScheduler& scheduler, const std::string& path, const TranscribeOptions& options,
                            std::shared_ptr<BatchScheduler::Ticket>* ticket = nullptr) {
  auto outcome = std::make_shared<Outcome>();
  auto promise = std::make_shared<std::promise<Outcome>>();
  BatchScheduler::Callbacks callbacks;
  callbacks.on_segment = [outcome](const Segment& s) { outcome->streamed.push_back(s); };
  callbacks.on_done = [outcome, promise](Transcript t) {
    outcome->transcript = std::move(t);
    promise->set_value(*outcome);
  };
  callbacks.on_error = [outcome, promise](const std::string& e) {
    outcome->error = e;
    promise->set_value(*outcome);
  };
  auto t = scheduler.submit(std::make_unique<AudioFileSource>(path), options, std::move(callbacks));
  if (ticket) *ticket = t;
  return promise->get_future();
}

class BatchSchedulerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string path = test::cached_model("tiny.en");
    data_ = test::shared_data_dir();
    if (path.empty() || data_.empty()) return;
    model_ = Model::load(path);
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
  static std::string clip(const char* name) { return data_ + "/audio/hifitts-6097/audio/" + name + ".wav"; }
  static inline std::shared_ptr<const Model> model_;
  static inline std::string data_;
};

TEST_F(BatchSchedulerTest, RequestsSubmittedWhileOthersRunEqualTheBatchTranscriber) {
  const std::vector<std::string> files = {data_ + "/audio/longform/hifitts-dev-concat.flac", data_ + "/audio/jfk.flac",
                                          clip("swag_06_tompkins_0883"), clip("roots_19_morris_0392")};
  std::vector<Transcript> expected(files.size());
  BatchTranscriber reference(model_, 4);
  reference.transcribe_files(
      files, greedy(), [&](size_t i, Transcript t) { expected[i] = std::move(t); },
      [](size_t i, const std::string& e) { FAIL() << i << ": " << e; });

  BatchScheduler scheduler(model_, 4, 0);
  std::vector<std::future<Outcome>> outcomes;
  outcomes.push_back(submit(scheduler, files[0], greedy()));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the long one is running
  for (size_t i = 1; i < files.size(); ++i) outcomes.push_back(submit(scheduler, files[i], greedy()));
  for (size_t i = 0; i < files.size(); ++i) {
    const Outcome o = outcomes[i].get();
    ASSERT_EQ(o.error, "") << files[i];
    EXPECT_EQ(o.transcript.text, expected[i].text) << files[i];
    ASSERT_EQ(o.transcript.segments.size(), expected[i].segments.size()) << files[i];
    ASSERT_EQ(o.streamed.size(), o.transcript.segments.size()) << "every segment was streamed before the end";
    for (size_t s = 0; s < o.streamed.size(); ++s) {
      EXPECT_EQ(o.streamed[s].id, static_cast<int>(s));
      EXPECT_EQ(o.streamed[s].text, o.transcript.segments[s].text);
      EXPECT_EQ(o.transcript.segments[s].tokens, expected[i].segments[s].tokens);
      EXPECT_DOUBLE_EQ(o.transcript.segments[s].start, expected[i].segments[s].start);
    }
    EXPECT_EQ(o.transcript.language, "en");
    EXPECT_DOUBLE_EQ(o.transcript.language_probability, 1.0) << "English-only: the language is given";
  }
  const BatchScheduler::Stats stats = scheduler.stats();
  EXPECT_EQ(stats.requests, 0);
  EXPECT_EQ(stats.queued_chunks, 0);
  EXPECT_EQ(stats.batch_size, 4);
}

// One request's chunks share the batch's decoder passes: greedy, each window is one row of a pass,
// so more rows than passes means windows decoded together (one woken slot took them one at a time).
TEST_F(BatchSchedulerTest, OneRequestsChunksAreDecodedTogether) {
  BatchScheduler scheduler(model_, 4, 0);
  TranscribeOptions o = greedy();
  o.decoding.without_timestamps = true;
  const Outcome done = submit(scheduler, data_ + "/audio/longform/hifitts-dev-concat.flac", o).get();
  ASSERT_TRUE(done.error.empty()) << done.error;
  ASSERT_GE(done.transcript.segments.size(), 4u);
  const EngineCounters c = scheduler.counters();
  EXPECT_GT(static_cast<double>(c.decode_rows) / static_cast<double>(c.decode_steps), 2.0)
      << c.decode_rows << " rows in " << c.decode_steps << " passes";
}

TEST_F(BatchSchedulerTest, ACancelledRequestEndsWithoutItsRemainingWindows) {
  // Cancelled as its first chunk's segments arrive: that chunk's slot is still busy (its segments are
  // delivered from inside its job), so none of the other seven chunks of the 232 s can have started.
  BatchScheduler scheduler(model_, 1, 0);
  std::shared_ptr<BatchScheduler::Ticket> ticket;
  std::mutex mutex;
  std::condition_variable ticket_set;
  std::vector<Segment> streamed;
  std::promise<std::string> error;
  BatchScheduler::Callbacks callbacks;
  callbacks.on_segment = [&](const Segment& s) {
    std::unique_lock lock(mutex);
    ticket_set.wait(lock, [&] { return ticket != nullptr; });
    streamed.push_back(s);
    ticket->cancel();
  };
  callbacks.on_done = [&](Transcript) { error.set_value("(finished)"); };
  callbacks.on_error = [&](const std::string& e) { error.set_value(e); };
  auto t = scheduler.submit(std::make_unique<AudioFileSource>(data_ + "/audio/longform/hifitts-dev-concat.flac"),
                            greedy(), std::move(callbacks));
  {
    std::lock_guard lock(mutex);
    ticket = t;
  }
  ticket_set.notify_all();
  EXPECT_EQ(error.get_future().get(), "cancelled");
  EXPECT_EQ(scheduler.stats().requests, 0) << "the request no longer counts once its last callback runs";
  EXPECT_EQ(scheduler.stats().queued_chunks, 0);
  ASSERT_FALSE(streamed.empty());
  EXPECT_LE(streamed.back().end, 30.0) << "only the first chunk's segments";
  const long long windows = scheduler.counters().encoder_windows;
  EXPECT_LE(windows, 2) << "the first chunk's windows only";
}

TEST_F(BatchSchedulerTest, SilenceIsDoneAtOnceAndBadAudioFailsAtSubmit) {
  const std::string dir = test::temp_dir();
  const std::string silence = test::write_wav(dir + "/silence.wav", 16000 * 5, [](int64_t) { return int16_t{0}; });
  BatchScheduler scheduler(model_, 2, 0);
  const Outcome o = submit(scheduler, silence, greedy()).get();
  EXPECT_EQ(o.error, "");
  EXPECT_TRUE(o.transcript.segments.empty());
  EXPECT_DOUBLE_EQ(o.transcript.duration, 5.0);

  const std::string text = dir + "/notes.wav";
  std::ofstream(text) << "not audio at all";
  EXPECT_NE(test::error_of([&] { submit(scheduler, text, greedy()); }), "(no error)");
  TranscribeOptions bad = greedy();
  bad.temperatures.clear();
  EXPECT_NE(test::error_of([&] { submit(scheduler, silence, bad); }), "(no error)");
  EXPECT_THROW(BatchScheduler(model_, 0, 0), Error);
  EXPECT_THROW(BatchScheduler(model_, 257, 0), Error);
}

}  // namespace
}  // namespace auris
