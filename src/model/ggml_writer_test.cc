#include <gtest/gtest.h>

#include <map>

#include "model/ggml_format.h"
#include "model/model_loader.h"
#include "model/model_test_util.h"
#include "test_support.h"
#include "util/mapped_file.h"

namespace auris {
namespace {

// whisper.cpp's layout: hparams ftype, per-tensor types as convert-pt-to-ggml.py writes them, conv
// biases as [n_state, 1] (ne = {1, n_state}), ne reversed.
TEST(Ggml, WriterFollowsWhisperCppLayout) {
  const ModelData m = test::synthetic_model();
  const std::string file = test::temp_dir() + "/m.bin";
  write_ggml(m, file, true);
  MappedFile mapped(file);
  ByteReader in(mapped.bytes(), file);
  const GgmlHeader h = read_ggml_header(in, file);
  EXPECT_EQ(h.ftype, 1);
  EXPECT_EQ(h.vocab.size(), 50256u);
  std::map<std::string, std::pair<int, std::vector<int32_t>>> seen;
  while (!in.at_end()) {
    const int32_t n_dims = in.read<int32_t>(), len = in.read<int32_t>(), type = in.read<int32_t>();
    std::vector<int32_t> ne;
    int64_t n = 1;
    for (int i = 0; i < n_dims; ++i) n *= ne.emplace_back(in.read<int32_t>());
    const std::string name = in.read_string(static_cast<uint64_t>(len));
    in.skip(static_cast<uint64_t>(n) * (type == 0 ? 4 : 2));
    seen[name] = {type, ne};
  }
  EXPECT_EQ(seen.size(), m.weights.size());
  EXPECT_EQ(seen["encoder.conv1.bias"], std::make_pair(0, std::vector<int32_t>{1, 8}));
  EXPECT_EQ(seen["encoder.conv1.weight"], std::make_pair(1, std::vector<int32_t>{3, 80, 8}));
  EXPECT_EQ(seen["encoder.positional_embedding"], std::make_pair(0, std::vector<int32_t>{8, 1500}));
  EXPECT_EQ(seen["decoder.token_embedding.weight"], std::make_pair(1, std::vector<int32_t>{8, 51864}));
  EXPECT_EQ(seen["decoder.blocks.0.mlp.0.weight"], std::make_pair(1, std::vector<int32_t>{8, 32}));
  EXPECT_EQ(seen["decoder.blocks.0.mlp.0.bias"].first, 0);
  EXPECT_EQ(seen["decoder.ln.weight"].first, 0);
}

}  // namespace
}  // namespace auris
