// Under ThreadSanitizer: threads submitting to one scheduler at once while its batch runs, each
// request's callbacks arriving from the batch's threads, get every transcript whole.
#include <gtest/gtest.h>

#include <future>
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
  const std::vector<std::string> files = {data + "/audio/jfk.flac",
                                          data + "/audio/hifitts-6097/audio/swag_06_tompkins_0883.wav",
                                          data + "/audio/hifitts-6097/audio/roots_19_morris_0392.wav"};
  BatchScheduler scheduler(model, 3, 1);
  std::vector<std::string> texts(files.size() * 2);
  std::vector<std::thread> clients;
  for (size_t c = 0; c < texts.size(); ++c)
    clients.emplace_back([&, c] {
      std::promise<std::string> done;
      BatchScheduler::Callbacks callbacks;
      std::string streamed;
      callbacks.on_segment = [&](const Segment& s) { streamed += s.text; };
      callbacks.on_done = [&](Transcript t) { done.set_value(streamed == t.text ? t.text : "streamed text differs"); };
      callbacks.on_error = [&](const std::string& e) { done.set_value("error: " + e); };
      auto future = done.get_future();
      scheduler.submit(std::make_unique<AudioFileSource>(files[c % files.size()]), greedy, std::move(callbacks));
      texts[c] = future.get();
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
