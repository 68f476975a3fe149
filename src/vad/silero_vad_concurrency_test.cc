// One SileroVad shared by threads: each call keeps its own LSTM state and workspace, so threads get
// what one thread alone gets. Runs under ThreadSanitizer in scripts/test.sh.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "auris/audio.h"
#include "test_support.h"
#include "util/thread_count.h"
#include "vad/silero_vad.h"
#include "vad/vad_fixtures_for_tests.h"

namespace auris {
namespace {

TEST(SileroVadConcurrency, ThreadsSharingOneModelGetWhatOneGetsAlone) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const SileroVad vad(test::vad_model_file(data));
  const std::vector<std::vector<float>> clips = {load_audio(data + "/audio/jfk.flac"),
                                                 load_audio(data + "/audio/multilingual/test_es.wav")};
  const ScopedThreadCount one_thread(1);  // the same products, so the same bits, in every thread
  std::vector<std::vector<float>> alone;
  for (const auto& clip : clips) alone.push_back(vad.speech_probabilities(clip));

  std::vector<std::vector<float>> together(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < together.size(); ++i)
    threads.emplace_back([&, i] {
      const ScopedThreadCount also_one(1);
      together[i] = vad.speech_probabilities(clips[i % clips.size()]);
    });
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < together.size(); ++i) EXPECT_EQ(together[i], alone[i % clips.size()]) << "thread " << i;
}

}  // namespace
}  // namespace auris
