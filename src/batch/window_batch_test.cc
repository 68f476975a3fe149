// Every decoder pass of a batch carries the rows of several windows while the cross-attention K/V are
// still computed once per window; one window's bad input fails that window alone; proposals go
// through passes that take them, and a refused one falls back to logits. (That windows
// decoded together give what each gives alone: window_batch_concurrency_test.cc.)
#include "batch/window_batch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api/model_impl.h"
#include "auris/audio.h"
#include "audio/mel_source.h"
#include "auris/error.h"
#include "auris/transcribe.h"
#include "decoding/decoding_task.h"
#include "decoding/step_proposals.h"
#include "decoding/step_rules.h"
#include "test_support.h"
#include "whisper/cpu_batch_passes.h"

namespace auris {
namespace {

class WindowBatchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string path = test::cached_model("tiny.en");
    const std::string data = test::shared_data_dir();
    if (path.empty() || data.empty()) return;
    model_ = Model::load(path);
    clips_.push_back(load_audio(data + "/audio/jfk.flac"));
    for (const char* name : {"presentpictureofnsw_02_mann_0532", "swag_06_tompkins_0883", "roots_19_morris_0392",
                             "shortstories_06_gaskell_0370", "bambatse_13_haggard_0083"})
      clips_.push_back(load_audio(data + "/audio/hifitts-6097/audio/" + name + ".wav"));
  }
  static void TearDownTestSuite() {
    model_.reset();
    clips_.clear();
  }
  void SetUp() override {
    if (!model_) GTEST_SKIP() << "needs ../shared/data and tiny.en (scripts/fetch_models.sh)";
  }

  // A clip's first window, as Transcriber::decode() feeds it.
  static LogMel window_of(const std::vector<float>& samples) {
    InMemoryMel mel(samples, model_impl(*model_).weights.dims.n_mels);
    return mel.window(0, std::min(kChunkFrames, mel.content_frames()));
  }

  // Every clip decoded on a batch of `slots` windows.
  static std::vector<DecodingResult> decode_batched(int slots, const DecodingOptions& options, WindowBatch* batch = nullptr) {
    const ModelImpl& m = model_impl(*model_);
    std::optional<WindowBatch> own;
    if (!batch) batch = &own.emplace(m.weights, slots);
    std::vector<DecodingResult> results(clips_.size());
    batch->run(static_cast<int>(clips_.size()), [&](WindowEngine& engine, int job) {
      const LogMel window = window_of(clips_[job]);
      engine.set_window(window);
      DecodingTask task(m.tokenizer, m.weights.dims, options);
      results[job] = task.run(engine);
    });
    return results;
  }

  static std::shared_ptr<const Model> model_;
  static std::vector<std::vector<float>> clips_;
};
std::shared_ptr<const Model> WindowBatchTest::model_;
std::vector<std::vector<float>> WindowBatchTest::clips_;

TEST_F(WindowBatchTest, PassesCarrySeveralWindowsAndCrossKVIsComputedOncePerWindow) {
  WindowBatch batch(model_impl(*model_).weights, 3);
  const EngineCounters before = batch.counters();
  DecodingOptions greedy;
  const std::vector<DecodingResult> results = decode_batched(3, greedy, &batch);
  const EngineCounters after = batch.counters();
  const int n_audio_ctx = model_impl(*model_).weights.dims.n_audio_ctx;
  const long long windows = static_cast<long long>(clips_.size());
  EXPECT_EQ(after.encoder_windows - before.encoder_windows, windows);
  EXPECT_EQ(after.cross_kv_rows - before.cross_kv_rows, windows * n_audio_ctx) << "cross K/V once per window";
  long long steps_alone = 0;  // a window of n tokens takes n - 1 steps after its prefill
  for (const DecodingResult& r : results) steps_alone += static_cast<long long>(r.tokens.size());
  const long long passes = after.decode_steps - before.decode_steps;
  EXPECT_GT(passes, 0);
  EXPECT_LT(passes, steps_alone) << "steps of different windows must share decoder passes";
  EXPECT_GT(after.decode_rows - before.decode_rows, passes) << "a pass carries more than one row on average";
}

TEST_F(WindowBatchTest, OneWindowsErrorLeavesTheOthersDecoded) {
  const ModelImpl& m = model_impl(*model_);
  WindowBatch batch(m.weights, 3);
  std::vector<std::string> outcome(clips_.size());
  batch.run(static_cast<int>(clips_.size()), [&](WindowEngine& engine, int job) {
    try {
      if (job == 1) {
        LogMel wrong = window_of(clips_[job]);
        wrong.n_frames = 100;  // not a 30-s window
        wrong.data.resize(static_cast<size_t>(wrong.n_mels) * 100);
        engine.set_window(wrong);
      } else {
        const LogMel window = window_of(clips_[job]);
        engine.set_window(window);
        DecodingOptions bad_prefix;
        if (job == 2) bad_prefix.prefix = TextOrTokens(std::vector<int>{m.weights.dims.n_vocab + 5});
        outcome[job] = DecodingTask(m.tokenizer, m.weights.dims, bad_prefix).run(engine).text;
      }
    } catch (const Error& e) {
      outcome[job] = std::string("error: ") + e.what();
    }
  });
  EXPECT_NE(outcome[1].find("error: encoder expects a log-mel window"), std::string::npos) << outcome[1];
  EXPECT_NE(outcome[2].find("error:"), std::string::npos) << outcome[2];
  EXPECT_NE(outcome[0].find("ask not what your country"), std::string::npos) << outcome[0];
  for (size_t i = 3; i < outcome.size(); ++i) EXPECT_EQ(outcome[i].rfind("error", 0), std::string::npos) << outcome[i];
}

// Passes that take Inference::propose calls (as the CUDA engine's do), made on the CPU: each propose
// call proposes from the CPU's logits filtered on the host, but every third one is refused, so
// that its slot asks for the step's logits next instead.
class ProposingPasses final : public BatchPasses {
 public:
  ProposingPasses(const WhisperModel& model, int slots) : cpu_(model, slots) {}
  int slots() const override { return cpu_.slots(); }
  int n_vocab() const override { return cpu_.n_vocab(); }
  bool proposes() const override { return true; }
  void encode(std::vector<Encode>& windows) override { cpu_.encode(windows); }
  void decode(std::vector<Decode>& calls) override {
    std::vector<Decode> served;
    std::vector<Decode*> origins;  // each served call's own
    std::vector<std::vector<float>> logits(calls.size());
    for (size_t i = 0; i < calls.size(); ++i) {
      Decode& c = calls[i];
      if (c.rules && ++propose_calls % 3 == 0) continue;  // refused: unproposed, nothing run
      served.push_back(c);
      if (c.rules) served.back().logits = &logits[i], served.back().rules = nullptr;
      origins.push_back(&c);
    }
    cpu_.decode(served);
    for (size_t i = 0; i < served.size(); ++i) {
      Decode& c = *origins[i];
      c.error = served[i].error;
      if (!c.rules || c.error) continue;
      std::vector<float>& l = *served[i].logits;
      apply_step_rules(*c.rules, l, n_vocab());
      propose_on_host(l, static_cast<int>(c.rules->row_masks.size()), n_vocab(), c.selection, c.k, *c.proposals);
      c.proposed = true;
      ++proposed;
    }
  }
  void align(int slot, const std::vector<int>& tokens, const std::vector<int>& logit_positions,
             const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
             std::vector<float>& cross_scores) override {
    cpu_.align(slot, tokens, logit_positions, heads, logits, cross_scores);
  }
  void rearrange(int slot, const std::vector<int>& source_rows) override { cpu_.rearrange(slot, source_rows); }
  void reset(int slot) override { cpu_.reset(slot); }
  bool has_window(int slot) const override { return cpu_.has_window(slot); }
  EngineCounters counters() const override { return cpu_.counters(); }

  int propose_calls = 0, proposed = 0;

 private:
  CpuBatchPasses cpu_;
};

// A slot's propose call goes through the batch's passes, and one they refuse comes back as a
// logits call: the same tokens as the batch without proposals, greedy and beam 5.
TEST_F(WindowBatchTest, ProposalsGoThroughThePassesAndRefusalsFallBackToLogits) {
  const WhisperModel& weights = model_impl(*model_).weights;
  for (int beam : {0, 5}) {
    DecodingOptions options;
    if (beam) options.beam_size = beam;
    auto passes = std::make_unique<ProposingPasses>(weights, 3);
    ProposingPasses& proposing = *passes;
    WindowBatch with_proposals(std::move(passes));
    const std::vector<DecodingResult> proposed = decode_batched(3, options, &with_proposals);
    const std::vector<DecodingResult> plain = decode_batched(3, options);
    for (size_t i = 0; i < plain.size(); ++i) EXPECT_EQ(proposed[i].tokens, plain[i].tokens) << "clip " << i << ", beam " << beam;
    EXPECT_GT(proposing.proposed, 0) << "beam " << beam;
    EXPECT_GT(proposing.propose_calls, proposing.proposed) << "some were refused";
  }
}

TEST(WindowBatch, NeedsAtLeastOneSlot) {
  AURIS_REQUIRE_MODEL(path, "tiny.en");
  const auto model = Model::load(path);
  EXPECT_THROW(WindowBatch(model_impl(*model).weights, 0), Error);
}

}  // namespace
}  // namespace auris
