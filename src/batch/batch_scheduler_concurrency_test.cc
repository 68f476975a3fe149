// Under ThreadSanitizer: threads submitting to one scheduler at once while its batch runs, each
// request's callbacks arriving from the batch's threads, get every transcript whole.
#include <gtest/gtest.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "audio/sample_source.h"
#include "batch/batch_scheduler.h"
#include "test_support.h"

namespace auris {
namespace {

TEST(BatchSchedulerConcurrency, ThreadsSubmittingTogetherGetTheirOwnTranscripts) {
  AURIS_REQUIRE_SHARED_DATA(data);
  AURIS_REQUIRE_MODEL(path, "tiny.en");
  const auto model = Model::load(path);
  TranscribeOptions greedy;
  greedy.decoding.beam_size.reset();
  // Two files, each sent by two clients: under TSan every transcription is slow.
  const std::vector<std::string> files = {data + "/audio/jfk.flac",
                                          data + "/audio/hifitts-6097/audio/swag_06_tompkins_0883.wav"};
  // Each client's outcome outlives the scheduler (declared before it), so it is freed on this thread
  // after the batch's threads are joined, not by whichever thread drops the last callback.
  struct Outcome {
    std::mutex mutex;
    std::condition_variable done;
    std::string streamed, text;
    bool finished = false;
  };
  std::vector<Outcome> outcomes(files.size() * 2);
  std::vector<std::string> texts(outcomes.size());
  BatchScheduler scheduler(model, 2, 1);
  std::vector<std::thread> clients;
  for (size_t c = 0; c < texts.size(); ++c)
    clients.emplace_back([&, c] {
      Outcome* outcome = &outcomes[c];
      auto finish = [outcome](std::string text) {
        std::lock_guard lock(outcome->mutex);
        outcome->text = std::move(text);
        outcome->finished = true;
        outcome->done.notify_all();
      };
      BatchScheduler::Callbacks callbacks;
      callbacks.on_segment = [outcome](const Segment& s) {
        std::lock_guard lock(outcome->mutex);
        outcome->streamed += s.text;
      };
      callbacks.on_done = [outcome, finish](Transcript t) {
        std::string streamed;
        {
          std::lock_guard lock(outcome->mutex);
          streamed = outcome->streamed;
        }
        finish(streamed == t.text ? t.text : "streamed text differs");
      };
      callbacks.on_error = [finish](const std::string& e) { finish("error: " + e); };
      scheduler.submit(std::make_unique<AudioFileSource>(files[c % files.size()]), greedy, std::move(callbacks));
      std::unique_lock lock(outcome->mutex);
      outcome->done.wait(lock, [&] { return outcome->finished; });
      texts[c] = outcome->text;
    });
  for (std::thread& t : clients) t.join();
  for (size_t c = 0; c < texts.size(); ++c) {
    EXPECT_EQ(texts[c], texts[c % files.size()]) << "the same file gives the same text, whoever it was batched with";
    EXPECT_EQ(texts[c].rfind("error", 0), std::string::npos) << texts[c];
    EXPECT_FALSE(texts[c].empty());
  }
}

}  // namespace
}  // namespace auris
