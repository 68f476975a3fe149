#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "model/ggml_blocks.h"
#include "model/ggml_format.h"
#include "model/model_loader.h"
#include "model/model_test_util.h"
#include "test_support.h"
#include "util/mapped_file.h"

namespace auris {
namespace {

using TensorTypes = std::map<std::string, std::pair<int, std::vector<int32_t>>>;

// Each tensor's ggml type and ne, as stored in `file`; the header's ftype into *ftype.
TensorTypes tensor_types(const std::string& file, int32_t* ftype) {
  MappedFile mapped(file);
  ByteReader in(mapped.bytes(), file);
  const GgmlHeader h = read_ggml_header(in, file);
  *ftype = h.ftype;
  EXPECT_EQ(h.vocab.size(), 50256u);
  TensorTypes seen;
  while (!in.at_end()) {
    const int32_t n_dims = in.read<int32_t>(), len = in.read<int32_t>(), type = in.read<int32_t>();
    std::vector<int32_t> ne;
    int64_t n = 1;
    for (int i = 0; i < n_dims; ++i) n *= ne.emplace_back(in.read<int32_t>());
    const std::string name = in.read_string(static_cast<uint64_t>(len));
    in.skip(ggml_tensor_bytes(type, static_cast<uint64_t>(n)));
    seen[name] = {type, ne};
  }
  return seen;
}

// whisper.cpp's layout: hparams ftype, per-tensor types as convert-pt-to-ggml.py writes them, conv
// biases as [n_state, 1] (ne = {1, n_state}), ne reversed.
TEST(Ggml, WriterFollowsWhisperCppLayout) {
  const ModelData m = test::synthetic_model();
  const std::string file = test::temp_dir() + "/m.bin";
  write_ggml(m, file, GgmlWeights::kFloat16);
  int32_t ftype = -1;
  TensorTypes seen = tensor_types(file, &ftype);
  EXPECT_EQ(ftype, 1);
  EXPECT_EQ(seen.size(), m.weights.size());
  EXPECT_EQ(seen["encoder.conv1.bias"], std::make_pair(0, std::vector<int32_t>{1, 8}));
  EXPECT_EQ(seen["encoder.conv1.weight"], std::make_pair(1, std::vector<int32_t>{3, 80, 8}));
  EXPECT_EQ(seen["encoder.positional_embedding"], std::make_pair(0, std::vector<int32_t>{8, 1500}));
  EXPECT_EQ(seen["decoder.token_embedding.weight"], std::make_pair(1, std::vector<int32_t>{8, 51864}));
  EXPECT_EQ(seen["decoder.blocks.0.mlp.0.weight"], std::make_pair(1, std::vector<int32_t>{8, 32}));
  EXPECT_EQ(seen["decoder.blocks.0.mlp.0.bias"].first, 0);
  EXPECT_EQ(seen["decoder.ln.weight"].first, 0);
}

// As whisper.cpp's `quantize` leaves a file: every 2-D weight but the positional embeddings in
// blocks, the 3-D convolution weights f16, the rest f32, and ftype 2000 + the file type.
TEST(Ggml, QuantisedWriterFollowsWhisperCppQuantize) {
  const ModelData m = test::synthetic_model(51864, 32);
  const std::string file = test::temp_dir() + "/q8.bin";
  write_ggml(m, file, GgmlWeights::kQ8_0);
  int32_t ftype = -1;
  TensorTypes seen = tensor_types(file, &ftype);
  EXPECT_EQ(ftype, 2007);
  EXPECT_EQ(seen.size(), m.weights.size());
  EXPECT_EQ(seen["encoder.conv1.weight"].first, kGgmlF16);
  EXPECT_EQ(seen["encoder.conv1.bias"].first, kGgmlF32);
  EXPECT_EQ(seen["encoder.positional_embedding"].first, kGgmlF32);
  EXPECT_EQ(seen["decoder.positional_embedding"].first, kGgmlF32);
  EXPECT_EQ(seen["decoder.token_embedding.weight"], std::make_pair(int{kGgmlQ8_0}, std::vector<int32_t>{32, 51864}));
  EXPECT_EQ(seen["encoder.blocks.0.attn.query.weight"].first, kGgmlQ8_0);
  EXPECT_EQ(seen["decoder.blocks.1.mlp.2.weight"].first, kGgmlQ8_0);
  EXPECT_EQ(seen["decoder.blocks.1.mlp.2.bias"].first, kGgmlF32);
}

// Rows that are not whole blocks cannot be quantised: the writer says so before creating the file.
TEST(Ggml, QuantisedWriterRefusesPartialBlocks) {
  const std::string file = test::temp_dir() + "/q4.bin";
  const std::string e = test::error_of([&] { write_ggml(test::synthetic_model(), file, GgmlWeights::kQ4_0); });
  EXPECT_NE(e.find("whole blocks of 32"), std::string::npos) << e;
  EXPECT_FALSE(std::filesystem::exists(file));
}

}  // namespace
}  // namespace auris
