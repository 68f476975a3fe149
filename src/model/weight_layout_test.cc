#include "model/weight_layout.h"

#include <gtest/gtest.h>

#include "auris/error.h"
#include "model/model_test_util.h"

namespace auris {
namespace {

TEST(WeightLayout, OpenaiTinyHas167Tensors) {
  ModelDims d;
  d.n_audio_state = d.n_text_state = 384;
  d.n_audio_layer = d.n_text_layer = 4;
  d.n_vocab = 51864;
  const auto specs = expected_weights(d);
  EXPECT_EQ(specs.size(), 167u);
  EXPECT_EQ(specs.front().name, "encoder.conv1.weight");
  EXPECT_EQ(specs.front().shape, (std::vector<int64_t>{384, 80, 3}));
  int key_biases = 0;
  for (const auto& s : specs) key_biases += s.name.ends_with("key.bias");
  EXPECT_EQ(key_biases, 0);
}

TEST(WeightLayout, ValidateNamesWhatIsWrong) {
  ModelData m = test::synthetic_model();
  EXPECT_NO_THROW(validate_weights(m.weights, m.dims, "x"));
  m.weights.put("encoder.blocks.0.attn.key.bias", Tensor({8}));
  EXPECT_THROW(validate_weights(m.weights, m.dims, "x"), Error);
  m.weights.take("encoder.blocks.0.attn.key.bias");
  m.weights.take("decoder.ln.weight");
  try {
    validate_weights(m.weights, m.dims, "x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("decoder.ln.weight"), std::string::npos);
  }
  EXPECT_EQ(regular_token_count(m.dims), 50256);
}

// A checkpoint whose encoder is not 1500 positions long loads in openai/whisper and fails on its
// first window; here it is refused at load, saying why.
TEST(WeightLayout, RefusesAnEncoderOfOtherThan1500Positions) {
  ModelData m = test::synthetic_model();
  m.dims.n_audio_ctx = 10;
  m.weights.put("encoder.positional_embedding", Tensor({10, 8}));
  try {
    validate_weights(m.weights, m.dims, "x");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the encoder has 10 positions, not Whisper's 1500"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace auris
