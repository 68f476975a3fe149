// Random-weight models have the registry shape, load back through a writer and loader, and say what
// to do when the vocabulary does not fit.
#include "model/random_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "model/model_loader.h"
#include "model/weight_layout.h"
#include "test_support.h"

namespace auris {
namespace {

std::vector<std::string> vocabulary(int n) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back(i < 256 ? std::string(1, static_cast<char>(i)) : "tok" + std::to_string(i));
  return v;
}

TEST(RandomModel, HasTheRegistryShapeAndLoadsBack) {
  const RegistryModel shape = registry_model("tiny");
  const ModelData m = random_model(shape, vocabulary(50257));
  EXPECT_EQ(m.dims.n_vocab, shape.n_vocab);
  EXPECT_EQ(m.dims.n_text_layer, shape.n_text_layer);
  EXPECT_EQ(m.weights.size(), expected_weights(m.dims).size());
  const Tensor& w = m.weights.get("decoder.blocks.1.mlp.0.weight");
  double sum = 0, squares = 0;
  for (float x : w.data) sum += x, squares += double(x) * x;
  const double mean = sum / w.data.size(), sd = std::sqrt(squares / w.data.size() - mean * mean);
  EXPECT_NEAR(sd, 0.02, 0.001);
  EXPECT_EQ(m.weights.get("encoder.ln_post.weight").data[0], 1.0f);
  EXPECT_EQ(m.weights.get("encoder.ln_post.bias").data[0], 0.0f);

  const std::string dir = test::temp_dir() + "/random-tiny";
  write_huggingface(m, dir, /*half=*/true);
  const ModelData back = load_model_data(dir);
  EXPECT_EQ(back.dims.n_vocab, m.dims.n_vocab);
  EXPECT_EQ(back.dims.n_audio_layer, m.dims.n_audio_layer);
  EXPECT_EQ(back.dims.n_text_state, m.dims.n_text_state);
  EXPECT_EQ(back.vocab, m.vocab);
  const Tensor& w_back = back.weights.get("decoder.blocks.1.mlp.0.weight");
  for (size_t i = 0; i < w.data.size(); i += 97) ASSERT_NEAR(w_back.data[i], w.data[i], 1e-4) << i;
}

TEST(RandomModel, RefusesAVocabularyOfTheWrongKind) {
  EXPECT_NE(test::error_of([] { random_model(registry_model("large-v3"), vocabulary(50256)); }).find("multilingual"),
            std::string::npos);
}

}  // namespace
}  // namespace auris
