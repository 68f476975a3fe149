// Golden parity with the real openai/whisper package on the same weights (fixtures written by
// tools/reference/golden.py): log-mel, encoder output and first-step logits within tolerance, and
// every decode (greedy with and without timestamps, beam search, prompts, detected languages,
// translation) token for token (DecodeParity). float32 matches by construction; float16 (float32 with an fp16
// cross-attention cache, the CLI's default) is checked against the same fixtures, which are what
// makes it the default.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "api/model_impl.h"
#include "auris/audio.h"
#include "audio/mel_source.h"
#include "auris/transcribe.h"
#include "decoding/decoding_task.h"
#include "decoding/detect_language.h"
#include "golden_fixtures.h"
#include "test_support.h"
#include "whisper/encoder.h"
#include "whisper/window_inference.h"

namespace auris {
namespace {

// Largest |a - b| over the largest |b|: a scale-free "relative" difference for whole arrays.
double relative_max_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, std::abs(double(a[i]) - b[i]));
    scale = std::max(scale, std::abs(double(b[i])));
  }
  return diff / scale;
}

DecodingOptions to_decoding_options(const test::GoldenOptions& g) {
  DecodingOptions o;
  o.task = g.task;
  o.language = g.language;
  o.temperature = g.temperature;
  o.beam_size = g.beam_size;
  o.patience = g.patience;
  if (g.prompt) o.prompt = TextOrTokens(*g.prompt);
  if (g.prefix) o.prefix = TextOrTokens(*g.prefix);
  o.without_timestamps = g.without_timestamps;
  o.max_initial_timestamp = g.max_initial_timestamp;
  o.suppress_blank = g.suppress_blank;
  o.suppress_tokens = TextOrTokens(g.suppress_tokens);
  return o;
}

class Parity : public ::testing::TestWithParam<std::tuple<std::string, ComputeType>> {
 protected:
  void SetUp() override {
    data_ = test::shared_data_dir();
    model_path_ = test::cached_model(model_name());
    if (data_.empty() || model_path_.empty())
      GTEST_SKIP() << "needs ../shared/data and the " << model_name() << " model (scripts/fetch_models.sh)";
    golden_ = std::make_unique<test::GoldenFixtures>(model_name());
    model_ = Model::load(model_path_, std::get<1>(GetParam()));
  }
  const std::string& model_name() const { return std::get<0>(GetParam()); }
  const WhisperModel& weights() const { return model_impl(*model_).weights; }
  const Tokenizer& tokenizer() const { return model_impl(*model_).tokenizer; }

  // The decode window of a clip, as the fixtures' "decode" recipe (transcribe()'s first window).
  LogMel decode_window(const std::string& clip) {
    const std::vector<float> samples = load_audio(data_ + "/" + clip);
    InMemoryMel mel(samples, weights().dims.n_mels);
    return mel.window(0, std::min(kChunkFrames, mel.content_frames()));
  }

  std::string data_, model_path_;
  std::unique_ptr<test::GoldenFixtures> golden_;
  std::shared_ptr<const Model> model_;
};

TEST_P(Parity, LogMelEncoderAndFirstLogits) {
  const auto& jfk = golden_->meta().at("jfk");
  const LogMel window = decode_window(jfk.at("clip").get<std::string>());

  const test::GoldenArray mel_ref = golden_->array("jfk_mel_frames.bin");
  const auto frames = jfk.at("mel_frames").get<std::vector<int>>();
  double mel_diff = 0;
  for (size_t i = 0; i < frames.size(); ++i)
    for (int m = 0; m < window.n_mels; ++m)
      mel_diff = std::max(mel_diff, std::abs(double(window.data[m * window.n_frames + frames[i]]) -
                                             mel_ref.data[i * window.n_mels + m]));
  EXPECT_LT(mel_diff, 1e-4) << "log-mel max abs diff";

  Encoder encoder(weights());
  std::vector<float> encoded;
  encoder.forward(window, encoded);
  const test::GoldenArray enc_ref = golden_->array("jfk_encoder_rows.bin");
  const auto rows = jfk.at("encoder_rows").get<std::vector<int>>();
  const int width = weights().dims.n_audio_state;
  std::vector<float> picked;
  for (int r : rows) picked.insert(picked.end(), encoded.begin() + r * width, encoded.begin() + (r + 1) * width);
  EXPECT_LT(relative_max_diff(picked, enc_ref.data), 1e-3) << "encoder output";

  WindowInference inference(weights());
  inference.set_window(encoded.data());
  for (const auto& [file, prompt] : jfk.at("logit_prompts").items()) {
    inference.reset();
    std::vector<float> logits;
    inference.logits({prompt.get<std::vector<int>>()}, logits);
    EXPECT_LT(relative_max_diff(logits, golden_->array(file).data), 1e-3) << file;
  }
}

TEST_P(Parity, DetectedLanguages) {
  if (golden_->detections().empty()) GTEST_SKIP() << model_name() << " is English-only";
  Transcriber transcriber(model_);
  for (const auto& g : golden_->detections()) {
    SCOPED_TRACE(g.id);
    const auto probs = transcriber.detect_language(load_audio(data_ + "/" + g.clip), kSampleRate);
    const auto best = std::max_element(probs.begin(), probs.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    EXPECT_EQ(best->first, g.language);
    for (const auto& [code, p] : g.top5) EXPECT_NEAR(probs.at(code), p, 1e-3) << code;
  }
}

TEST_P(Parity, PublicDecodeMatchesTheReferenceOnJfk) {
  Transcriber transcriber(model_);
  const test::GoldenDecode& g = golden_->decode("jfk/greedy_ts");
  const DecodingResult r = transcriber.decode(load_audio(data_ + "/" + g.clip), kSampleRate,
                                              to_decoding_options(g.options));
  EXPECT_EQ(r.tokens, g.tokens);
}

INSTANTIATE_TEST_SUITE_P(Models, Parity,
                         ::testing::Combine(::testing::Values("tiny.en", "base"),
                                            ::testing::Values(ComputeType::kFloat32, ComputeType::kFloat16)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) == "tiny.en" ? "TinyEn" : "Base") + "_" +
                                  compute_type_name(std::get<1>(info.param));
                         });

// Every decode in both compute types. float16 encodes as float32 does (the encoder's weights are
// packed fp32 in both; float16 narrows only the decoder's), so each clip's window is encoded once
// and decoded by both models, each over its own cross K/V.
class DecodeParity : public ::testing::TestWithParam<std::string> {};

TEST_P(DecodeParity, EveryDecodeIsTokenForTokenInFloat32AndFloat16) {
  const std::string& name = GetParam();
  const std::string data = test::shared_data_dir();
  const std::string path = test::cached_model(name);
  if (data.empty() || path.empty()) GTEST_SKIP() << "needs ../shared/data and the " << name << " model";
  const test::GoldenFixtures golden(name);
  const std::vector<std::shared_ptr<const Model>> models = {Model::load(path, ComputeType::kFloat32),
                                                            Model::load(path, ComputeType::kFloat16)};
  const WhisperModel& weights = model_impl(*models[0]).weights;
  const Tokenizer& tokenizer = model_impl(*models[0]).tokenizer;

  // Clips share a window: encode each once, decode all of its entries over the same cross K/V.
  std::map<std::string, std::vector<const test::GoldenDecode*>> by_clip;
  for (const auto& d : golden.decodes()) by_clip[d.clip].push_back(&d);
  ASSERT_FALSE(by_clip.empty());

  Encoder encoder(weights);
  std::vector<WindowInference> inferences;
  for (const auto& m : models) inferences.emplace_back(model_impl(*m).weights);
  std::vector<float> encoded;
  int checked = 0;
  for (const auto& [clip, entries] : by_clip) {
    const std::vector<float> samples = load_audio(data + "/" + clip);
    InMemoryMel mel(samples, weights.dims.n_mels);
    const LogMel window = mel.window(0, std::min(kChunkFrames, mel.content_frames()));
    encoder.forward(window, encoded);
    if (checked == 0) {
      std::vector<float> encoded_by_float16;
      Encoder(model_impl(*models[1]).weights).forward(window, encoded_by_float16);
      ASSERT_EQ(encoded_by_float16, encoded) << "float16 encodes as float32 does: sharing the encoder is exact";
    }
    for (size_t t = 0; t < models.size(); ++t) {
      SCOPED_TRACE(compute_type_name(model_impl(*models[t]).weights.compute_type));
      WindowInference& inference = inferences[t];
      inference.set_window(encoded.data());
      for (const test::GoldenDecode* g : entries) {
        SCOPED_TRACE(g->id);
        DecodingTask task(tokenizer, weights.dims, to_decoding_options(g->options));
        const DecodingResult r = task.run(inference);
        std::vector<int> initial = task.initial_tokens();
        if (g->language_detected)  // openai writes the detected language into the start sequence
          initial[task.sot_index() + 1] = *tokenizer.language_token(r.language);
        EXPECT_EQ(initial, g->initial_tokens);
        EXPECT_EQ(r.tokens, g->tokens) << "ours: " << r.text << "\nreference: " << g->text;
        EXPECT_EQ(r.text, g->text);
        EXPECT_EQ(r.language, g->language);
        EXPECT_NEAR(r.avg_logprob, g->avg_logprob, 2e-3);
        EXPECT_NEAR(r.no_speech_prob, g->no_speech_prob, 1e-3);
        if (r.tokens == g->tokens) {
          EXPECT_NEAR(r.compression_ratio, g->compression_ratio, 1e-9);
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, static_cast<int>(2 * golden.decodes().size()));
}

INSTANTIATE_TEST_SUITE_P(Models, DecodeParity, ::testing::Values("tiny.en", "base"),
                         [](const auto& info) { return std::string(info.param == "tiny.en" ? "TinyEn" : "Base"); });

}  // namespace
}  // namespace auris
