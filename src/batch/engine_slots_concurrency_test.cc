// Slots that each run whole windows on their own engine (the runner for CUDA), here over CPU engines:
// every job's result equals the same window decoded alone, the slots run at once, one job's error
// leaves the others done, and the engines' counters add up.
#include "batch/engine_slots.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "api/model_impl.h"
#include "audio/mel_source.h"
#include "auris/audio.h"
#include "auris/error.h"
#include "decoding/decoding_task.h"
#include "test_support.h"

namespace auris {
namespace {

class EngineSlotsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = test::cached_model("tiny.en"), data = test::shared_data_dir();
    if (path.empty() || data.empty()) GTEST_SKIP() << "needs ../shared/data and tiny.en (scripts/fetch_models.sh)";
    model_ = Model::load(path);
    clips_.push_back(load_audio(data + "/audio/jfk.flac"));
    for (const char* name : {"presentpictureofnsw_02_mann_0532", "swag_06_tompkins_0883", "roots_19_morris_0392"})
      clips_.push_back(load_audio(data + "/audio/hifitts-6097/audio/" + name + ".wav"));
  }
  DecodingResult decode(WindowEngine& engine, int clip) const {
    const ModelImpl& m = model_impl(*model_);
    InMemoryMel mel(clips_[clip], m.weights.dims.n_mels);
    engine.set_window(mel.window(0, std::min(kChunkFrames, mel.content_frames())));
    return DecodingTask(m.tokenizer, m.weights.dims, DecodingOptions{}).run(engine);
  }
  std::shared_ptr<const Model> model_;
  std::vector<std::vector<float>> clips_;
};

TEST_F(EngineSlotsTest, EachSlotDecodesAsAWindowAlone) {
  const ModelImpl& m = model_impl(*model_);
  EngineSlots slots([&] { return make_window_engine(m); }, 3);
  EXPECT_EQ(slots.slots(), 3);
  const int jobs = static_cast<int>(clips_.size());
  std::vector<DecodingResult> results(jobs);
  std::atomic<int> running{0}, most_running{0};
  slots.run(jobs, [&](WindowEngine& engine, int job) {
    const int now = ++running;
    int seen = most_running.load();
    while (now > seen && !most_running.compare_exchange_weak(seen, now)) {
    }
    results[job] = decode(engine, job);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the slots overlap
    --running;
  });
  EXPECT_GT(most_running.load(), 1) << "the slots run side by side";
  EXPECT_EQ(slots.busy_slots(), 0);
  const auto alone = make_window_engine(m);
  for (int job = 0; job < jobs; ++job) EXPECT_EQ(results[job].tokens, decode(*alone, job).tokens) << "clip " << job;
  EXPECT_EQ(slots.counters().encoder_windows, jobs) << "one encoder pass per window, counted by its engine";
}

TEST_F(EngineSlotsTest, OneJobsErrorLeavesTheOthersDone) {
  const ModelImpl& m = model_impl(*model_);
  EngineSlots slots([&] { return make_window_engine(m); }, 2);
  std::vector<std::string> texts(clips_.size());
  EXPECT_THROW(slots.run(static_cast<int>(clips_.size()),
                         [&](WindowEngine& engine, int job) {
                           if (job == 1) throw Error("a bad window");
                           texts[job] = decode(engine, job).text;
                         }),
               Error);
  for (size_t job = 0; job < clips_.size(); ++job) {
    if (job == 1) continue;
    EXPECT_FALSE(texts[job].empty()) << "clip " << job;
  }
}

TEST(EngineSlots, NeedsAtLeastOneSlot) {
  EXPECT_THROW(EngineSlots([]() -> std::unique_ptr<WindowEngine> { return nullptr; }, 0), Error);
}

}  // namespace
}  // namespace auris
