#include "model/model_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "auris/error.h"
#include "model/model_test_util.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace auris {
namespace {

using test::error_of;

TEST(ModelLoader, DetectsEachFormat) {
  const ModelData m = test::synthetic_model();
  const std::string dir = test::temp_dir();
  test::write_ct2_dir(m, dir + "/ct2", test::Ct2Storage::kFloat16);
  write_huggingface(m, dir + "/hf");
  write_ggml(m, dir + "/model.ggml");
  EXPECT_EQ(detect_model_format(dir + "/ct2"), ModelFormat::kCTranslate2);
  EXPECT_EQ(detect_model_format(dir + "/ct2/model.bin"), ModelFormat::kCTranslate2);
  EXPECT_EQ(detect_model_format(dir + "/hf"), ModelFormat::kHuggingFace);
  EXPECT_EQ(detect_model_format(dir + "/model.ggml"), ModelFormat::kGgml);
  for (const std::string& path : {dir + "/ct2", dir + "/ct2/model.bin", dir + "/hf", dir + "/model.ggml"})
    EXPECT_TRUE(load_model_data(path) == m) << path;
}

TEST(ModelLoader, ClearErrorsForPathsThatAreNotModels) {
  const std::string dir = test::temp_dir();
  EXPECT_NE(error_of([&] { load_model_data(dir + "/missing"); }).find("does not exist"), std::string::npos);
  EXPECT_NE(error_of([&] { load_model_data(dir); }).find("holds no model files"), std::string::npos);
  std::ofstream(dir + "/notes.txt") << "hello";
  EXPECT_NE(error_of([&] { load_model_data(dir + "/notes.txt"); }).find("not a model file"), std::string::npos);
  std::ofstream(dir + "/empty.bin");
  EXPECT_NE(error_of([&] { load_model_data(dir + "/empty.bin"); }).find("not a model file"), std::string::npos);
  fs::create_directories(dir + "/pt");
  std::ofstream(dir + "/pt/config.json") << R"({"model_type": "whisper"})";
  std::ofstream(dir + "/pt/pytorch_model.bin") << "x";
  EXPECT_NE(error_of([&] { load_model_data(dir + "/pt"); }).find("no \""), std::string::npos);
}

// The must-show round trip: the real CTranslate2 tiny.en (fp16) through Hugging Face safetensors and
// through ggml (f32 and f16) comes back bit-identical: weights, dims (alignment heads too), vocabulary.
TEST(ModelLoader, RealTinyEnRoundTripsThroughEveryFormat) {
  AURIS_REQUIRE_MODEL(path, "tiny.en");
  const ModelData original = load_model_data(path);
  EXPECT_EQ(original.weights.size(), 167u);  // openai tiny.en's state_dict
  const std::string dir = test::temp_dir();
  for (bool half : {false, true}) {
    const std::string hf = dir + (half ? "/hf16" : "/hf32");
    write_huggingface(original, hf, half);
    const ModelData from_hf = load_model_data(hf);
    EXPECT_EQ(from_hf.dims, original.dims) << hf;
    EXPECT_EQ(from_hf.vocab, original.vocab) << hf;
    EXPECT_TRUE(from_hf.weights == original.weights) << hf;

    const std::string ggml = dir + (half ? "/ggml-f16.bin" : "/ggml-f32.bin");
    write_ggml(original, ggml, half ? GgmlWeights::kFloat16 : GgmlWeights::kFloat32);
    const ModelData from_ggml = load_model_data(ggml);
    EXPECT_EQ(from_ggml.dims, original.dims) << ggml;
    EXPECT_EQ(from_ggml.vocab, original.vocab) << ggml;
    EXPECT_TRUE(from_ggml.weights == original.weights) << ggml;
  }
}

}  // namespace
}  // namespace auris
