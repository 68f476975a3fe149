// The cache design, proven by counting rows through the projections: cross-attention K/V are
// computed once per window and never by a decode step, and every decode of the window reuses them.
#include "whisper/window_inference.h"

#include <gtest/gtest.h>

#include "auris/audio.h"
#include "audio/mel.h"
#include "auris/error.h"
#include "decoding/decoding_task.h"
#include "model/model_loader.h"
#include "test_support.h"
#include "tokenizer/tokenizer.h"
#include "whisper/encoder.h"

namespace auris {
namespace {

struct Engine {
  explicit Engine(const std::string& path) {
    ModelData data = load_model_data(path);
    tokenizer = std::make_unique<Tokenizer>(data.vocab, data.dims.num_languages());
    model = build_whisper_model(std::move(data));
  }
  long long cross_kv_rows() const { return model.cross_kv_all_layers.rows_multiplied(); }
  long long cross_query_rows() const {
    long long n = 0;
    for (const auto& b : model.decoder_blocks) n += b.cross_query.rows_multiplied();
    return n;
  }
  WhisperModel model;
  std::unique_ptr<Tokenizer> tokenizer;
};

class CacheDesign : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string path = test::cached_model("tiny.en");
    if (path.empty()) GTEST_SKIP() << "model tiny.en not cached: run scripts/fetch_models.sh";
    const std::string data = test::shared_data_dir();
    if (data.empty()) GTEST_SKIP() << "../shared/data not found";
    engine_ = std::make_unique<Engine>(path);
    const auto samples = load_audio(data + "/audio/jfk.flac");
    const LogMel mel = log_mel_spectrogram(samples, engine_->model.dims.n_mels, kChunkSamples);
    Encoder encoder(engine_->model);
    encoder.forward(mel_window(mel, 0), encoder_out_);
  }
  std::unique_ptr<Engine> engine_;
  std::vector<float> encoder_out_;
};

TEST_F(CacheDesign, DecodeStepsAddNoCrossKVRows) {
  WindowInference inference(engine_->model);
  inference.set_window(encoder_out_.data());
  const long long n_ctx = engine_->model.dims.n_audio_ctx;
  EXPECT_EQ(engine_->cross_kv_rows(), n_ctx) << "one projection over the window's encoder output";

  const std::vector<int> prompt = {engine_->tokenizer->sot()};
  std::vector<float> logits;
  inference.logits({prompt, prompt, prompt}, logits);  // prefill (three rows share one prompt)
  const long long after_prefill = engine_->cross_kv_rows();
  const long long query_after_prefill = engine_->cross_query_rows();
  EXPECT_EQ(after_prefill, n_ctx);

  std::vector<std::vector<int>> rows = {prompt, prompt, prompt};
  for (int step = 0; step < 10; ++step) {
    for (auto& r : rows) r.push_back(220 + step);
    inference.logits(rows, logits);
  }
  EXPECT_EQ(engine_->cross_kv_rows(), after_prefill) << "decode steps must not project cross K/V";
  // Each step projects Q once per row in each decoder layer.
  EXPECT_EQ(engine_->cross_query_rows() - query_after_prefill, 10LL * 3 * engine_->model.dims.n_text_layer);
  EXPECT_EQ(inference.cached_length(), 11);
}

TEST_F(CacheDesign, RetriesAndBeamsReuseTheWindowsCrossKV) {
  WindowInference inference(engine_->model);
  inference.set_window(encoder_out_.data());
  const long long once = engine_->cross_kv_rows();

  DecodingOptions greedy;
  DecodingResult first = DecodingTask(*engine_->tokenizer, engine_->model.dims, greedy).run(inference);
  DecodingOptions hotter;
  hotter.temperature = 0.4;
  hotter.best_of = 3;
  DecodingTask(*engine_->tokenizer, engine_->model.dims, hotter).run(inference);
  DecodingOptions beam;
  beam.beam_size = 5;
  DecodingResult beamed = DecodingTask(*engine_->tokenizer, engine_->model.dims, beam).run(inference);

  EXPECT_EQ(engine_->cross_kv_rows(), once) << "temperature retries and beams must reuse the cross K/V";
  EXPECT_FALSE(first.tokens.empty());
  EXPECT_FALSE(beamed.tokens.empty());
  // Decoding the same window again gives the same tokens: the cache was reset, not corrupted.
  EXPECT_EQ(DecodingTask(*engine_->tokenizer, engine_->model.dims, greedy).run(inference).tokens, first.tokens);
}

TEST_F(CacheDesign, AttentionReadsOnlyTheFilledPrefix) {
  // Garbage beyond the filled prefix of the static cache must not change the logits.
  WindowInference a(engine_->model), b(engine_->model);
  a.set_window(encoder_out_.data());
  b.set_window(encoder_out_.data());
  std::vector<int> tokens = {engine_->tokenizer->sot(), 50363, 843};
  std::vector<float> la, lb;
  a.logits({tokens}, la);
  // Fill b's cache far past the prompt, then start over: the stale tail stays in memory.
  std::vector<int> long_prompt(100, 220);
  long_prompt[0] = engine_->tokenizer->sot();
  b.logits({long_prompt}, lb);
  b.reset();
  b.logits({tokens}, lb);
  ASSERT_EQ(la.size(), lb.size());
  for (size_t i = 0; i < la.size(); ++i) ASSERT_EQ(la[i], lb[i]) << i;
}

TEST_F(CacheDesign, RejectsContextOverflowAndBadTokens) {
  WindowInference inference(engine_->model);
  inference.set_window(encoder_out_.data());
  std::vector<float> logits;
  EXPECT_THROW(inference.logits({{-5}}, logits), Error);
  inference.reset();
  EXPECT_THROW(inference.logits({{1 << 30}}, logits), Error);
  inference.reset();
  std::vector<int> too_long(engine_->model.dims.n_text_ctx + 1, 220);
  EXPECT_THROW(inference.logits({too_long}, logits), Error);
}

}  // namespace
}  // namespace auris
