// The ggml VAD reader on whisper.cpp's real Silero VAD v6.2.0 file, and on that file damaged every
// way a download or a wrong file can damage it: each must be an auris::Error that says what is wrong.
#include "vad/ggml_vad_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "auris/error.h"
#include "model/model_test_util.h"
#include "util/mapped_file.h"
#include "vad/vad_fixtures_for_tests.h"

namespace auris {
namespace {

// Header layout of the real file (ggml_vad_file.h): the first tensor record starts at 106.
constexpr size_t kTypeLength = 4, kVersionMajor = 18, kWindowSize = 30, kFirstLayerIn = 42, kFirstTensor = 106;
// The first record: n_dims, name length, type, ne[3], then its 36-byte name and the data.
constexpr size_t kFirstDims = kFirstTensor, kFirstType = kFirstTensor + 8, kFirstNe = kFirstTensor + 12,
                 kFirstName = kFirstTensor + 24;

class GgmlVadFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = test::shared_data_dir();
    if (data_.empty()) GTEST_SKIP() << "../shared/data not found (set AURIS_TEST_DATA to the test data)";
    bytes_ = read_text_file(test::vad_model_file(data_));
    file_ = test::temp_dir() + "/vad.bin";
  }
  std::string load_error(const std::string& content) {
    test::write_file(file_, content);
    return test::error_of([&] { read_ggml_vad(file_); });
  }
  // The file with int32s written from offset on.
  std::string with_int(size_t offset, std::initializer_list<int32_t> values) const {
    std::string b = bytes_;
    for (int32_t v : values) {
      std::memcpy(b.data() + offset, &v, 4);
      offset += 4;
    }
    return b;
  }
  std::string with_int(size_t offset, int32_t value) const { return with_int(offset, {value}); }
  std::string data_, bytes_, file_;
};

TEST_F(GgmlVadFileTest, ReadsTheRealFile) {
  const GgmlVadFile f = read_ggml_vad(test::vad_model_file(data_));
  EXPECT_EQ(f.model_type, "silero-16k");
  EXPECT_EQ(f.version[0], 6);
  EXPECT_EQ(f.version[1], 2);
  EXPECT_EQ(f.version[2], 0);
  ASSERT_EQ(f.tensors.size(), 15u);
  EXPECT_EQ(f.tensors.at("_model.encoder.0.reparam_conv.weight").shape, (std::vector<int64_t>{128, 129, 3}));
  EXPECT_EQ(f.tensors.at("_model.encoder.2.reparam_conv.weight").shape, (std::vector<int64_t>{64, 64, 3}));
  EXPECT_EQ(f.tensors.at("_model.decoder.rnn.weight_hh").shape, (std::vector<int64_t>{512, 128}));
  EXPECT_EQ(f.tensors.at("_model.stft.forward_basis_buffer").shape, (std::vector<int64_t>{258, 1, 256}));
  EXPECT_EQ(f.tensors.at("_model.decoder.decoder.2.bias").data.size(), 1u);  // stored as a 0-d scalar
  // The first real basis row is the periodic Hann window (cos 0 = 1): 0 at the edge, 1 at the middle.
  const std::vector<float>& basis = f.tensors.at("_model.stft.forward_basis_buffer").data;
  EXPECT_EQ(basis[0], 0.0f);
  EXPECT_EQ(basis[128], 1.0f);
}

TEST_F(GgmlVadFileTest, TruncatedFilesSayTheyAreTruncated) {
  const size_t data_of_first = kFirstName + 36;
  for (size_t n : {size_t{0}, size_t{3}, size_t{4}, size_t{12}, kVersionMajor + 2, kWindowSize, size_t{60},
                   kFirstTensor, kFirstTensor + 5, data_of_first, data_of_first + 1000, bytes_.size() / 2,
                   bytes_.size() - 1}) {
    const std::string e = load_error(bytes_.substr(0, n));
    EXPECT_NE(e.find("truncated"), std::string::npos) << n << ": " << e;
    EXPECT_NE(e.find("auris download silero-vad"), std::string::npos) << n << ": " << e;  // what to do
  }
}

// Never a crash: every cut of the header and of the first records, and a stride through the rest.
TEST_F(GgmlVadFileTest, EveryTruncationIsAnError) {
  std::vector<size_t> cuts;
  for (size_t n = 0; n < 200; n += 3) cuts.push_back(n);
  for (size_t n = 200; n < bytes_.size(); n += 29989) cuts.push_back(n);
  for (size_t n : cuts) EXPECT_NE(load_error(bytes_.substr(0, n)), "(no error)") << n;
}

TEST_F(GgmlVadFileTest, WrongMagicTypeOrArchitecture) {
  EXPECT_NE(load_error(with_int(0, 0x12345678)).find("not a whisper.cpp ggml model"), std::string::npos);
  EXPECT_NE(load_error(with_int(0, 0x46554747)).find("GGUF"), std::string::npos);
  EXPECT_NE(load_error(with_int(kTypeLength, 1 << 30)).find("model type of 1073741824 bytes"), std::string::npos);
  std::string eight_k = bytes_;
  eight_k.replace(8 + 7, 2, "8k");  // "silero-16k" -> "silero-8kk"
  EXPECT_NE(load_error(eight_k).find("holds a 'silero-8kk' model"), std::string::npos);
  EXPECT_NE(load_error(with_int(kVersionMajor, 4)).find("Silero VAD v4.2.0"), std::string::npos);
  EXPECT_NE(load_error(with_int(kWindowSize, 256)).find("window size = 256, expected 512"), std::string::npos);
  EXPECT_NE(load_error(with_int(kFirstLayerIn, -1)).find("encoder layer 0 input channels = -1, expected 129"),
            std::string::npos);
}

TEST_F(GgmlVadFileTest, CorruptTensorRecords) {
  EXPECT_NE(load_error(with_int(kFirstDims, 200)).find("corrupted tensor header"), std::string::npos);
  EXPECT_NE(load_error(with_int(kFirstNe, 1 << 30)).find("larger than the file"), std::string::npos);
  EXPECT_NE(load_error(with_int(kFirstNe, -5)).find("dimension of -5"), std::string::npos);
  EXPECT_NE(load_error(with_int(kFirstType, 6)).find("as q5_0 (quantised)"), std::string::npos);
  // ne [3, 129, 128] -> [129, 3, 128]: as many bytes, another shape.
  const std::string swapped = load_error(with_int(kFirstNe, {129, 3}));
  EXPECT_NE(swapped.find("has shape [128, 3, 129], expected [128, 129, 3]"), std::string::npos) << swapped;
  std::string renamed = bytes_;
  renamed[kFirstName + 1] = 'X';
  EXPECT_NE(load_error(renamed).find("unexpected tensor '_Xodel.encoder.0.reparam_conv.weight'"), std::string::npos);
}

TEST_F(GgmlVadFileTest, MissingOrRepeatedTensors) {
  // The last record is the STFT basis: 3 ints + 3 dims + its 32-byte name + 258 * 256 fp16 values.
  const size_t last = 24 + 32 + 258 * 256 * 2;
  const std::string basis = bytes_.substr(bytes_.size() - last);
  EXPECT_NE(load_error(bytes_.substr(0, bytes_.size() - last)).find("lacks tensor '_model.stft.forward_basis_buffer'"),
            std::string::npos);
  EXPECT_NE(load_error(bytes_ + basis).find("holds tensor '_model.stft.forward_basis_buffer' twice"), std::string::npos);
}

TEST_F(GgmlVadFileTest, AWhisperModelIsNotAVadModel) {
  const std::string e = test::error_of([&] { read_ggml_vad(data_ + "/ggml-format/for-tests-ggml-tiny.bin"); });
  EXPECT_NE(e.find("not a whisper.cpp VAD model"), std::string::npos) << e;
  EXPECT_NE(test::error_of([&] { read_ggml_vad(data_ + "/no-such-file.bin"); }), "(no error)");
}

// Random int32s written over the header and the first records: an error or a load, never a crash.
TEST_F(GgmlVadFileTest, RandomDamageNeverCrashes) {
  std::mt19937 rng(7);
  const int32_t values[] = {0, -1, 1, 3, 129, 1 << 20, INT32_MIN, INT32_MAX};
  int errors = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const size_t offset = rng() % (kFirstName + 100);
    const std::string e = load_error(with_int(offset, values[rng() % std::size(values)]));
    errors += e != "(no error)";
  }
  EXPECT_GT(errors, 40);
}

}  // namespace
}  // namespace auris
