#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "auris/error.h"
#include "model/ggml_blocks.h"
#include "model/ggml_format.h"
#include "model/model_loader.h"
#include "model/model_registry.h"
#include "model/model_test_util.h"
#include "audio/mel_filters.h"
#include "test_support.h"
#include "util/mapped_file.h"

namespace auris {
namespace {

using test::error_of;

GgmlHeader header_of(const std::string& path) {
  MappedFile file(path);
  ByteReader in(file.bytes(), path);
  GgmlHeader h = read_ggml_header(in, path);
  EXPECT_TRUE(in.at_end());  // the test files stop after the vocabulary
  return h;
}

// whisper.cpp's own test files: real hparams, mel filters and vocabulary, no tensors.
TEST(GgmlHeader, ReadsWhisperCppTestFiles) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const GgmlHeader tiny = header_of(data + "/ggml-format/for-tests-ggml-tiny.bin");
  EXPECT_EQ(tiny.dims.n_vocab, 51865);
  EXPECT_EQ(tiny.dims.n_audio_ctx, 1500);
  EXPECT_EQ(tiny.dims.n_audio_state, 384);
  EXPECT_EQ(tiny.dims.n_audio_head, 6);
  EXPECT_EQ(tiny.dims.n_text_layer, 4);
  EXPECT_EQ(tiny.dims.n_text_ctx, 448);
  EXPECT_EQ(tiny.dims.n_mels, 80);
  EXPECT_EQ(tiny.ftype, 1);
  EXPECT_EQ(tiny.n_mel_filters, 80);
  EXPECT_EQ(tiny.n_fft_bins, 201);
  ASSERT_EQ(tiny.vocab.size(), 50257u);
  EXPECT_EQ(tiny.vocab[0], "!");
  EXPECT_EQ(tiny.vocab[50256], "");

  const GgmlHeader en = header_of(data + "/ggml-format/for-tests-ggml-tiny.en.bin");
  EXPECT_EQ(en.dims.n_vocab, 51864);
  ASSERT_EQ(en.vocab.size(), 50257u);  // an older conversion: ends with <|endoftext|>
  EXPECT_EQ(en.vocab[50255], " gazed");
  EXPECT_EQ(en.vocab[50256], "<|endoftext|>");

  // Without tensors the model is incomplete, and says so.
  EXPECT_NE(error_of([&] { load_ggml(data + "/ggml-format/for-tests-ggml-tiny.en.bin"); }).find("missing tensor"),
            std::string::npos);
}

// The filters auris computes for the ggml writer equal the ones whisper.cpp stored (openai's
// mel_filters.npz, i.e. librosa's slaney filter bank) to float rounding.
TEST(GgmlHeader, ComputedMelFiltersMatchWhisperCpp) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const GgmlHeader h = header_of(data + "/ggml-format/for-tests-ggml-tiny.bin");
  const std::vector<float>& mine = mel_filters(80).weights;
  ASSERT_EQ(mine.size(), h.mel_filters.size());
  for (size_t i = 0; i < mine.size(); ++i) ASSERT_NEAR(mine[i], h.mel_filters[i], 1e-8) << i;
  EXPECT_EQ(mel_filters(128).weights.size(), 128u * 201u);
}

TEST(Ggml, WriteThenLoadIsExact) {
  const ModelData m = test::synthetic_model(51866);
  for (bool half : {false, true}) {
    const std::string file = test::temp_dir() + (half ? "/f16.bin" : "/f32.bin");
    write_ggml(m, file, half ? GgmlWeights::kFloat16 : GgmlWeights::kFloat32);
    const ModelData loaded = load_ggml(file);
    EXPECT_EQ(loaded.vocab, m.vocab);
    EXPECT_TRUE(loaded.weights == m.weights);
    EXPECT_EQ(loaded.dims.n_mels, 80);
    // No heads in ggml files and no registry model of this shape: openai's default (last half of the layers).
    EXPECT_EQ(loaded.dims.alignment_heads, (std::vector<std::pair<int, int>>{{1, 0}, {1, 1}}));
  }
}

// q8_0 and q4_0 files load as their blocks stand for: every 2-D weight matrix d * q, the rest as
// written (the synthetic weights are exact in f16, which the convolutions' weights stay in).
TEST(Ggml, QuantisedWriteThenLoad) {
  const ModelData m = test::synthetic_model(51864, 32);
  for (const auto& [weights, type, ftype] : {std::tuple{GgmlWeights::kQ8_0, kGgmlQ8_0, 2007},
                                             std::tuple{GgmlWeights::kQ4_0, kGgmlQ4_0, 2002}}) {
    const std::string file = test::temp_dir() + "/" + ggml_type_name(type) + ".bin";
    write_ggml(m, file, weights);
    {
      MappedFile mapped(file);
      ByteReader in(mapped.bytes(), file);
      EXPECT_EQ(read_ggml_header(in, file).ftype, ftype);
    }
    const ModelData loaded = load_ggml(file);
    EXPECT_EQ(loaded.vocab, m.vocab);
    int quantised = 0;
    for (const std::string& name : m.weights.names()) {
      const Tensor& original = m.weights.get(name);
      std::vector<float> expected = original.data;
      if (original.rank() == 2 && name.find("positional_embedding") == std::string::npos) {
        std::vector<uint8_t> blocks(ggml_tensor_bytes(type, expected.size()));
        quantize_ggml_blocks(type, original.data.data(), expected.size(), blocks.data());
        dequantize_ggml_blocks(type, blocks.data(), expected.size(), expected.data());
        ++quantised;
      }
      EXPECT_EQ(loaded.weights.get(name).data, expected) << ggml_type_name(type) << " " << name;
    }
    EXPECT_GT(quantised, 10);
  }
}

class GgmlBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    file = test::temp_dir() + "/m.bin";
    write_ggml(test::synthetic_model(), file, GgmlWeights::kFloat16);
    bytes = read_text_file(file);
  }
  std::string load_error(const std::string& content) {
    test::write_file(file, content);
    return error_of([&] { load_ggml(file); });
  }
  std::string with_int(size_t offset, int32_t value) const {
    std::string b = bytes;
    std::memcpy(b.data() + offset, &value, 4);
    return b;
  }
  // Offset of the first tensor record.
  size_t first_tensor() const {
    MappedFile mapped(file);
    ByteReader in(mapped.bytes(), file);
    read_ggml_header(in, file);
    return in.position();
  }
  std::string file, bytes;
};

TEST_F(GgmlBadInput, Truncated) {
  for (size_t n : {size_t{0}, size_t{2}, size_t{4}, size_t{30}, size_t{60}, size_t{5000}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_NE(load_error(bytes.substr(0, n)).find("truncated"), std::string::npos) << n << ": " << load_error(bytes.substr(0, n));
}

TEST_F(GgmlBadInput, BadMagicAndHparams) {
  EXPECT_NE(load_error(with_int(0, 0x46554747)).find("GGUF"), std::string::npos);
  EXPECT_NE(load_error(with_int(0, 0x12345678)).find("not a whisper.cpp ggml model"), std::string::npos);
  EXPECT_NE(load_error(with_int(4, 1 << 31)).find("n_vocab"), std::string::npos);        // n_vocab 2^31 (negative)
  EXPECT_NE(load_error(with_int(4, 0x7fffffff)).find("n_vocab"), std::string::npos);
  EXPECT_NE(load_error(with_int(44, 8)).find("quantised (q5_0)"), std::string::npos);   // ftype
  EXPECT_NE(load_error(with_int(48, 1 << 30)).find("mel filter count"), std::string::npos);
}

TEST_F(GgmlBadInput, QuantisedOrCorruptTensors) {
  const size_t t = first_tensor();
  EXPECT_NE(load_error(with_int(t + 8, 6)).find("as q5_0 (quantised)"), std::string::npos);
  EXPECT_NE(load_error(with_int(t + 8, 8)).find("not whole blocks of 32"), std::string::npos);  // rows of 3
  EXPECT_NE(load_error(with_int(t, 200)).find("corrupted tensor header"), std::string::npos);
  EXPECT_NE(load_error(with_int(t + 12, 1 << 30)).find("larger than the file"), std::string::npos);
  EXPECT_NE(load_error(with_int(t + 12, -5)).find("dimension of -5"), std::string::npos);
}

TEST_F(GgmlBadInput, WrongShapeOrMissingTensor) {
  // Drop the last tensor (decoder.ln.bias, f32 [8]): 3 ints + 1 dim + name + data.
  const size_t last = 16 + std::string("decoder.ln.bias").size() + 8 * 4;
  EXPECT_NE(load_error(bytes.substr(0, bytes.size() - last)).find("missing tensor 'decoder.ln.bias'"), std::string::npos);
  // Claim a different audio context than the positional embedding has.
  const std::string e = load_error(with_int(8, 1499));  // n_audio_ctx
  EXPECT_NE(e.find("'encoder.positional_embedding' has shape [1500, 8], expected [1499, 8]"), std::string::npos) << e;
}

}  // namespace
}  // namespace auris
