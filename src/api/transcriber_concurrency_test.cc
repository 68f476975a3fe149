// Transcribers on several threads sharing one Model: each gets exactly what it gets alone, and the
// model's shared row counters lose no increment. scripts/test.sh runs this file under ThreadSanitizer
// too (the *_concurrency_test.cc files), where a data race fails the run.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "auris/audio.h"
#include "api/engine_access.h"
#include "auris/error.h"
#include "auris/transcribe.h"
#include "test_support.h"

namespace auris {
namespace {

struct Job {
  std::vector<float> audio;
  TranscribeOptions options;
};

// Each job's text, tokens and word times; every field a race could corrupt.
std::string fingerprint(const Transcript& t) {
  std::string out = t.language + "|" + t.text;
  for (const Segment& s : t.segments) {
    out += "|" + std::to_string(s.start) + "-" + std::to_string(s.end) + ":";
    for (int token : s.tokens) out += std::to_string(token) + ",";
    for (const Word& w : s.words) out += w.word + "@" + std::to_string(w.start) + "-" + std::to_string(w.end);
  }
  return out;
}

TEST(TranscriberConcurrency, ThreadsSharingAModelGetWhatEachGetsAlone) {
  AURIS_REQUIRE_SHARED_DATA(data);
  AURIS_REQUIRE_MODEL(path, "tiny.en");
  const std::shared_ptr<const Model> model = Model::load(path);
  const std::vector<float> jfk = load_audio(data + "/audio/jfk.flac");
  const std::vector<float> clip =
      load_audio(data + "/audio/hifitts-6097/audio/presentpictureofnsw_02_mann_0532.wav");

  // Greedy with word timestamps (the alignment pass) and beam search: every engine path that keeps
  // state between steps. Each job costs an encoder pass, slow under the sanitizers: two jobs.
  std::vector<Job> jobs(2);
  jobs[0] = {jfk, {}};
  jobs[0].options.decoding.beam_size.reset();
  jobs[0].options.word_timestamps = true;
  jobs[1] = {clip, {}};
  jobs[1].options.decoding.beam_size = 3;

  auto cross_kv_rows = [&] {
    Transcriber probe(model);
    return engine_counters(probe).cross_kv_rows;  // the model's count, added to by every Transcriber
  };
  const long long before = cross_kv_rows();
  std::vector<std::string> alone;
  for (const Job& job : jobs) {
    Transcriber t(model);
    t.set_threads(1);
    alone.push_back(fingerprint(t.transcribe(job.audio, 16000, job.options)));
  }
  const long long serial_rows = cross_kv_rows() - before;
  ASSERT_GT(serial_rows, 0);

  constexpr int kRounds = 1;
  std::vector<std::vector<std::string>> together(jobs.size());
  std::vector<std::thread> threads;
  for (size_t j = 0; j < jobs.size(); ++j)
    threads.emplace_back([&, j] {
      for (int round = 0; round < kRounds; ++round) {
        Transcriber t(model);  // a fresh one: the same audio again would reuse its window
        t.set_threads(1);
        together[j].push_back(fingerprint(t.transcribe(jobs[j].audio, 16000, jobs[j].options)));
      }
    });
  for (std::thread& t : threads) t.join();

  for (size_t j = 0; j < jobs.size(); ++j)
    for (int round = 0; round < kRounds; ++round) EXPECT_EQ(together[j][round], alone[j]) << "job " << j;
  EXPECT_EQ(cross_kv_rows() - before, serial_rows * (1 + kRounds)) << "a shared counter lost increments";
}

TEST(TranscriberConcurrency, ThreadCountIsPerTranscriber) {
  AURIS_REQUIRE_MODEL(path, "tiny.en");
  Transcriber t(Model::load(path));
  EXPECT_EQ(t.threads(), 0);
  t.set_threads(1);
  EXPECT_EQ(t.threads(), 1);
  EXPECT_THROW(t.set_threads(-2), Error);
}

}  // namespace
}  // namespace auris
