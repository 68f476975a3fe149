#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "auris/error.h"
#include "model/huggingface_names.h"
#include "model/model_loader.h"
#include "model/model_test_util.h"
#include "model/safetensors.h"
#include "test_support.h"
#include "util/mapped_file.h"

namespace fs = std::filesystem;

namespace auris {
namespace {

using test::error_of;

TEST(HuggingFaceNames, MapsOpenaiNames) {
  EXPECT_EQ(huggingface_name("encoder.conv1.weight"), "model.encoder.conv1.weight");
  EXPECT_EQ(huggingface_name("encoder.positional_embedding"), "model.encoder.embed_positions.weight");
  EXPECT_EQ(huggingface_name("encoder.blocks.3.attn.query.weight"), "model.encoder.layers.3.self_attn.q_proj.weight");
  EXPECT_EQ(huggingface_name("encoder.blocks.0.attn_ln.bias"), "model.encoder.layers.0.self_attn_layer_norm.bias");
  EXPECT_EQ(huggingface_name("encoder.blocks.11.mlp.2.weight"), "model.encoder.layers.11.fc2.weight");
  EXPECT_EQ(huggingface_name("encoder.ln_post.weight"), "model.encoder.layer_norm.weight");
  EXPECT_EQ(huggingface_name("decoder.token_embedding.weight"), "model.decoder.embed_tokens.weight");
  EXPECT_EQ(huggingface_name("decoder.blocks.1.cross_attn.key.weight"), "model.decoder.layers.1.encoder_attn.k_proj.weight");
  EXPECT_EQ(huggingface_name("decoder.blocks.1.cross_attn_ln.weight"), "model.decoder.layers.1.encoder_attn_layer_norm.weight");
  EXPECT_EQ(huggingface_name("decoder.blocks.2.mlp_ln.bias"), "model.decoder.layers.2.final_layer_norm.bias");
  EXPECT_EQ(huggingface_name("decoder.ln.bias"), "model.decoder.layer_norm.bias");
  EXPECT_THROW(huggingface_name("encoder.blocks.0.bogus.weight"), Error);
}

// The writer's files read back to the same model, at fp32 and (for fp16-exact weights) at fp16.
TEST(HuggingFace, WriteThenLoadIsExact) {
  const ModelData m = test::synthetic_model(51865);
  for (bool half : {false, true}) {
    const std::string dir = test::temp_dir() + (half ? "/f16" : "/f32");
    write_huggingface(m, dir, half);
    const ModelData loaded = load_huggingface(dir);
    EXPECT_EQ(loaded.dims, m.dims);
    EXPECT_EQ(loaded.vocab, m.vocab);
    EXPECT_TRUE(loaded.weights == m.weights);
  }
}

// Sharded checkpoints: the index maps each tensor to its shard.
TEST(HuggingFace, LoadsShardedCheckpoint) {
  const ModelData m = test::synthetic_model();
  const std::string dir = test::temp_dir();
  write_huggingface(m, dir, false);
  SafetensorsFile whole(dir + "/model.safetensors");
  std::vector<Tensor> tensors;
  const auto names = whole.names();
  for (const auto& name : names) tensors.push_back(whole.read(name));
  std::vector<std::pair<std::string, const Tensor*>> a, b;
  nlohmann::json map;
  for (size_t i = 0; i < names.size(); ++i) {
    (i % 2 ? a : b).emplace_back(names[i], &tensors[i]);
    map[names[i]] = i % 2 ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  write_safetensors(dir + "/model-00001-of-00002.safetensors", a, false);
  write_safetensors(dir + "/model-00002-of-00002.safetensors", b, true);
  fs::remove(dir + "/model.safetensors");
  std::ofstream(dir + "/model.safetensors.index.json") << nlohmann::json{{"weight_map", map}}.dump();
  EXPECT_TRUE(load_huggingface(dir).weights == m.weights);
}

// The real openai/whisper-tiny config and vocabulary: dims and vocab come out as openai's tiny.
TEST(HuggingFace, ReadsRealConfigAndVocabulary) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const std::string real = data + "/tokenizer/hf-whisper-tiny";
  // Weights of the right shapes (synthetic values) beside the real side files.
  ModelData m = test::synthetic_model(51865);
  ModelDims& d = m.dims;
  d.n_audio_state = d.n_text_state = 384;
  d.n_audio_head = d.n_text_head = 6;
  d.n_audio_layer = d.n_text_layer = 4;
  WeightMap weights;
  for (const WeightSpec& spec : expected_weights(d)) weights.put(spec.name, Tensor(spec.shape));
  m.weights = weights;
  const std::string dir = test::temp_dir();
  write_huggingface(m, dir, true);
  for (const char* file : {"config.json", "generation_config.json", "vocab.json"})
    fs::copy_file(real + "/" + file, dir + "/" + file, fs::copy_options::overwrite_existing);
  const ModelData loaded = load_huggingface(dir);
  EXPECT_EQ(loaded.dims.n_vocab, 51865);
  EXPECT_EQ(loaded.dims.n_audio_head, 6);
  EXPECT_EQ(loaded.dims.alignment_heads, (std::vector<std::pair<int, int>>{{2, 2}, {3, 0}, {3, 2}, {3, 3}, {3, 4}, {3, 5}}));
  ASSERT_EQ(loaded.vocab.size(), 50257u);
  EXPECT_EQ(loaded.vocab[0], "!");
  EXPECT_EQ(loaded.vocab[50256], "");
  EXPECT_EQ(loaded.vocab[50255], "\xe5\x9c\xba");
}

class HuggingFaceBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = test::temp_dir();
    write_huggingface(test::synthetic_model(), dir, false);
  }
  std::string error() { return error_of([&] { load_huggingface(dir); }); }
  void rewrite(const std::function<void(std::vector<std::pair<std::string, Tensor>>&)>& edit) {
    SafetensorsFile file(dir + "/model.safetensors");
    std::vector<std::pair<std::string, Tensor>> tensors;
    for (const auto& name : file.names()) tensors.emplace_back(name, file.read(name));
    edit(tensors);
    std::vector<std::pair<std::string, const Tensor*>> refs;
    for (const auto& [name, t] : tensors) refs.emplace_back(name, &t);
    write_safetensors(dir + "/model.safetensors.tmp", refs, false);
    fs::rename(dir + "/model.safetensors.tmp", dir + "/model.safetensors");
  }
  std::string dir;
};

TEST_F(HuggingFaceBadInput, WrongShape) {
  rewrite([](auto& tensors) {
    for (auto& [name, t] : tensors)
      if (name == "model.decoder.layers.1.fc1.weight") t = Tensor({31, 8});
  });
  const std::string e = error();
  EXPECT_NE(e.find("model.decoder.layers.1.fc1.weight' has shape [31, 8], expected [32, 8]"), std::string::npos) << e;
}

TEST_F(HuggingFaceBadInput, MissingTensor) {
  rewrite([](auto& tensors) { std::erase_if(tensors, [](auto& p) { return p.first == "model.encoder.layer_norm.bias"; }); });
  EXPECT_NE(error().find("missing tensor 'model.encoder.layer_norm.bias'"), std::string::npos);
}

TEST_F(HuggingFaceBadInput, UntiedProjection) {
  rewrite([](auto& tensors) { tensors.emplace_back("proj_out.weight", Tensor({51864, 8})); });
  EXPECT_NE(error().find("proj_out"), std::string::npos);
}

TEST_F(HuggingFaceBadInput, BadConfigAndMissingFiles) {
  std::ofstream(dir + "/config.json") << R"({"model_type": "whisper", "d_model": 8})";
  EXPECT_NE(error().find("no \"num_mel_bins\""), std::string::npos) << error();
  std::ofstream(dir + "/config.json") << "{oops";
  EXPECT_NE(error().find("not valid JSON"), std::string::npos);
  // Nested deeper than the stack could print it back in an error message.
  std::ofstream(dir + "/config.json") << R"({"model_type": "whisper", "num_mel_bins": )" << std::string(1000000, '[')
                                      << std::string(1000000, ']') << "}";
  EXPECT_NE(error().find("nested deeper than"), std::string::npos) << error();
  fs::remove(dir + "/config.json");
  EXPECT_NE(error().find("no config.json"), std::string::npos);
}

// A generation_config.json that is not an object is damaged: its alignment heads are not silently
// replaced by the defaults.
TEST_F(HuggingFaceBadInput, GenerationConfigThatIsNotAnObject) {
  std::ofstream(dir + "/generation_config.json") << "[]";
  EXPECT_NE(error().find("generation_config.json' is not a JSON object"), std::string::npos) << error();
}

TEST_F(HuggingFaceBadInput, TruncatedWeights) {
  const std::string full = read_text_file(dir + "/model.safetensors");
  for (size_t n : {size_t{0}, size_t{7}, size_t{100}, full.size() / 2, full.size() - 1}) {
    std::ofstream(dir + "/model.safetensors", std::ios::binary).write(full.data(), static_cast<std::streamsize>(n));
    EXPECT_NE(error().find("truncated"), std::string::npos) << n << ": " << error();
  }
}

TEST_F(HuggingFaceBadInput, VocabularyOfAnotherModel) {
  std::ofstream(dir + "/vocab.json") << R"({"a": 0, "b": 1})";
  EXPECT_NE(error().find("no token with id 2"), std::string::npos) << error();
}

}  // namespace
}  // namespace auris
