#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>

#include "auris/error.h"
#include "model/model_loader.h"
#include "model/model_registry.h"
#include "model/model_test_util.h"
#include "test_support.h"

namespace auris {
namespace {

using test::Ct2Storage;

TEST(Ct2Loader, Float32FileLoadsExactly) {
  const ModelData m = test::synthetic_model();
  const std::string dir = test::temp_dir() + "/ct2";
  test::write_ct2_dir(m, dir, Ct2Storage::kFloat32);
  const ModelData loaded = load_ctranslate2(dir);
  EXPECT_EQ(loaded.dims, m.dims);
  EXPECT_EQ(loaded.vocab, m.vocab);
  EXPECT_TRUE(loaded.weights == m.weights);
}

TEST(Ct2Loader, Float16FileLoadsExactly) {
  const ModelData m = test::synthetic_model(51865);  // multilingual: 50257 regular tokens
  const std::string dir = test::temp_dir() + "/ct2";
  test::write_ct2_dir(m, dir, Ct2Storage::kFloat16);
  const ModelData loaded = load_ctranslate2(dir);
  EXPECT_EQ(loaded.dims, m.dims);
  EXPECT_EQ(loaded.vocab.size(), 50257u);
  EXPECT_TRUE(loaded.weights == m.weights);
}

// int8 weights come back as q / scale with CTranslate2's per-row scale = 127 / max|row|.
TEST(Ct2Loader, Int8WeightsAreDequantisedPerRow) {
  const ModelData m = test::synthetic_model();
  const std::string dir = test::temp_dir() + "/ct2";
  test::write_ct2_dir(m, dir, Ct2Storage::kInt8);
  const ModelData loaded = load_ctranslate2(dir);
  EXPECT_EQ(loaded.dims, m.dims);
  int quantised = 0;
  for (const std::string& name : m.weights.names()) {
    const Tensor& original = m.weights.get(name);
    const Tensor& t = loaded.weights.get(name);
    ASSERT_EQ(t.shape, original.shape) << name;
    const bool is_matrix = name.ends_with("weight") && original.rank() == 2 && name.find("_ln") == std::string::npos &&
                           name.find(".ln") == std::string::npos && name.find("positional") == std::string::npos;
    if (!is_matrix) {
      EXPECT_EQ(t.data, original.data) << name;
      continue;
    }
    ++quantised;
    const int64_t cols = original.dim(1);
    bool changed = false;
    for (int64_t r = 0; r < original.dim(0); ++r) {
      float amax = 0;
      for (int64_t c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(original.data[r * cols + c]));
      for (int64_t c = 0; c < cols; ++c) {
        const float want = std::nearbyint(original.data[r * cols + c] * (127.0f / amax)) / (127.0f / amax);
        ASSERT_EQ(t.data[r * cols + c], want) << name;
        EXPECT_NEAR(t.data[r * cols + c], original.data[r * cols + c], amax / 254 * 1.0001f);
        changed |= t.data[r * cols + c] != original.data[r * cols + c];
      }
    }
    EXPECT_TRUE(changed) << name << " was not quantised";
  }
  EXPECT_GT(quantised, 10);
}

TEST(Ct2Loader, AcceptsOlderBinaryVersionsWithTheSameLayout) {
  const ModelData m = test::synthetic_model();
  for (uint32_t version : {4u, 5u}) {
    const std::string dir = test::temp_dir() + "/v" + std::to_string(version);
    const std::string bytes = test::ct2_writer_for(m, Ct2Storage::kFloat32).bytes(version);
    test::write_ct2_dir(m, dir, Ct2Storage::kFloat32, &bytes);
    EXPECT_TRUE(load_ctranslate2(dir).weights == m.weights) << version;
  }
}

using test::error_of;

class Ct2BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    model = test::synthetic_model();
    dir = test::temp_dir() + "/ct2";
  }
  std::string load_error(const std::string& model_bin) {
    test::write_ct2_dir(model, dir, Ct2Storage::kFloat32, &model_bin);
    return error_of([&] { load_ctranslate2(dir); });
  }
  test::Ct2TestWriter writer() { return test::ct2_writer_for(model, Ct2Storage::kFloat32); }
  ModelData model;
  std::string dir;
};

TEST_F(Ct2BadInput, TruncatedFiles) {
  const std::string full = writer().bytes();
  for (size_t n : {size_t{0}, size_t{3}, size_t{4}, size_t{10}, size_t{21}, size_t{40}, size_t{1000}, full.size() / 2,
                   full.size() - 5, full.size() - 1}) {
    const std::string e = load_error(full.substr(0, n));
    EXPECT_NE(e.find("truncated"), std::string::npos) << "n=" << n << ": " << e;
  }
}

TEST_F(Ct2BadInput, UnsupportedVersionAndSpec) {
  EXPECT_NE(load_error(writer().bytes(7)).find("binary version 7"), std::string::npos);
  EXPECT_NE(load_error(writer().bytes(0)).find("not a CTranslate2 model.bin"), std::string::npos);
  // Random bytes read as a version are not a newer model to convert with an older ctranslate2.
  EXPECT_NE(load_error(writer().bytes(2299495786u)).find("damaged"), std::string::npos);
  std::string other = writer().bytes();
  other.replace(other.find("WhisperSpec"), 11, "BertSpecXYZ");
  EXPECT_NE(load_error(other).find("not a Whisper model"), std::string::npos);
}

TEST_F(Ct2BadInput, MissingVariable) {
  auto w = writer();
  w.skip.insert("decoder/layer_1/ffn/linear_0/bias");
  EXPECT_NE(load_error(w.bytes()).find("missing variable 'decoder/layer_1/ffn/linear_0/bias'"), std::string::npos);
}

TEST_F(Ct2BadInput, WrongShape) {
  model.weights.put("encoder.blocks.0.mlp.2.bias", Tensor({7}));
  const std::string e = load_error(writer().bytes());
  EXPECT_NE(e.find("encoder.blocks.0.mlp.2.bias"), std::string::npos) << e;
  EXPECT_NE(e.find("[7]"), std::string::npos) << e;
}

TEST_F(Ct2BadInput, HugeOrInvalidHeaders) {
  const auto u32 = [](uint32_t v) { return test::Ct2TestWriter::bytes_of(&v, 4); };
  const std::string rank200 = std::string(1, char(200)) + u32(1) + u32(1);
  const std::string huge_dims = std::string(1, char(2)) + u32(1u << 31) + u32(1u << 31) + char(0) + u32(0);
  const std::string bad_type = std::string(1, char(1)) + u32(1) + char(9) + u32(4) + u32(0);
  const std::string beyond = std::string(1, char(1)) + u32(1000) + char(0) + u32(4000);
  const std::string wrong_bytes = std::string(1, char(1)) + u32(2) + char(0) + u32(4) + u32(0);
  const std::pair<std::string, std::string> cases[] = {
      {rank200, "rank 200"}, {huge_dims, "more elements than the file"}, {bad_type, "data type code 9"},
      {beyond, "truncated"}, {wrong_bytes, "holds 4 bytes"}};
  for (const auto& [record, expected] : cases) {
    auto w = writer();
    w.raw_variable("bad/variable", record);
    const std::string e = load_error(w.bytes());
    EXPECT_NE(e.find(expected), std::string::npos) << e;
  }
}

TEST_F(Ct2BadInput, NonZeroKeyBias) {
  auto w = writer();
  w.remove("encoder/layer_0/self_attention/linear_0/bias");
  Tensor bias({24});
  bias.data.assign(24, 0.5f);
  w.tensor("encoder/layer_0/self_attention/linear_0/bias", bias);
  EXPECT_NE(load_error(w.bytes()).find("non-zero key bias"), std::string::npos);
}

TEST_F(Ct2BadInput, Int8WithoutScale) {
  auto w2 = test::ct2_writer_for(model, Ct2Storage::kInt8);
  w2.skip.insert("decoder/layer_0/ffn/linear_0/weight_scale");
  EXPECT_NE(load_error(w2.bytes()).find("weight_scale' is missing"), std::string::npos);
}

TEST_F(Ct2BadInput, MissingVocabularyAndDirectory) {
  test::write_ct2_dir(model, dir, Ct2Storage::kFloat32);
  std::filesystem::remove(dir + "/vocabulary.txt");
  EXPECT_NE(error_of([&] { load_ctranslate2(dir); }).find("vocabulary"), std::string::npos);
  EXPECT_NE(error_of([&] { load_ctranslate2(dir + "/nope"); }).find("no model.bin"), std::string::npos);
}

// A config.json that is JSON but not an object is damaged, not a conversion without alignment heads.
TEST_F(Ct2BadInput, ConfigThatIsNotAnObject) {
  test::write_ct2_dir(model, dir, Ct2Storage::kFloat32);
  for (const char* config : {"[]", "42", "\"alignment_heads\""}) {
    std::ofstream(dir + "/config.json") << config;
    const std::string e = error_of([&] { load_ctranslate2(dir); });
    EXPECT_NE(e.find("config.json' is not a JSON object, as a model's configuration is"), std::string::npos) << config << ": " << e;
  }
  std::ofstream(dir + "/config.json") << "{}";
  EXPECT_NO_THROW(load_ctranslate2(dir));
}

// The real faster-whisper tiny.en conversion: shapes, heads and vocabulary as openai's tiny.en, and
// the encoder's positional embedding equal to openai's sinusoids() (to fp16 precision), which pins
// the name mapping and the tensor layout.
TEST(Ct2Loader, RealTinyEn) {
  AURIS_REQUIRE_MODEL(path, "tiny.en");
  const ModelData m = load_ctranslate2(path);
  EXPECT_EQ(m.dims.n_vocab, 51864);
  EXPECT_EQ(m.dims.n_audio_state, 384);
  EXPECT_EQ(m.dims.n_audio_head, 6);
  EXPECT_EQ(m.dims.n_text_head, 6);
  EXPECT_EQ(m.dims.n_audio_layer, 4);
  EXPECT_EQ(m.dims.n_text_layer, 4);
  EXPECT_EQ(m.dims.n_mels, 80);
  EXPECT_EQ(m.dims.alignment_heads, registry_model("tiny.en").alignment_heads);
  ASSERT_EQ(m.vocab.size(), 50256u);
  EXPECT_EQ(m.vocab[0], "!");
  EXPECT_EQ(m.vocab[262], " the");
  EXPECT_EQ(m.vocab[50255], " gazed");

  const Tensor& pos = m.weights.get("encoder.positional_embedding");
  const int channels = 384, half = channels / 2;
  const double increment = std::log(10000.0) / (half - 1);
  double worst = 0;
  for (int t = 0; t < 1500; t += 7)
    for (int c = 0; c < half; ++c) {
      const double angle = t * std::exp(-increment * c);
      worst = std::max(worst, std::fabs(pos.data[t * channels + c] - std::sin(angle)));
      worst = std::max(worst, std::fabs(pos.data[t * channels + half + c] - std::cos(angle)));
    }
  EXPECT_LT(worst, 1e-3);
}

}  // namespace
}  // namespace auris
