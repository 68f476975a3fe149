#include "model/hub_listing.h"

#include <gtest/gtest.h>

#include "auris/error.h"
#include "test_support.h"

namespace auris {
namespace {

// The shape of GET https://huggingface.co/api/models/Systran/faster-whisper-tiny.en/tree/main
// (huggingface.js's ListFileEntry), with made-up digests.
constexpr const char* kListing = R"([
  {"type": "file", "oid": "9e26dfeeb6e641a33dae4961196235bdb965b21b", "size": 2, "path": "config.json"},
  {"type": "file", "oid": "0123456789abcdef0123456789abcdef01234567", "size": 75538270, "path": "model.bin",
   "lfs": {"oid": "5c80c97b573921129844efefafa35c821dcc2d118fe48ac2ccd8321b98c57de7", "size": 75538270,
           "pointerSize": 134}},
  {"type": "file", "oid": "0123456789abcdef0123456789abcdef01234567", "size": 3000, "path": "big.bin",
   "xetHash": "00ff"},
  {"type": "directory", "oid": "0123456789abcdef0123456789abcdef01234567", "size": 0, "path": "onnx"}
])";

TEST(HubListing, ReadsEachFilesCheck) {
  const auto files = parse_hub_listing(kListing);
  ASSERT_EQ(files.size(), 3u);  // not the directory
  const HubFile& config = files.at("config.json");
  EXPECT_EQ(config.check, HubFile::Check::kGitBlob);
  EXPECT_EQ(config.digest, "9e26dfeeb6e641a33dae4961196235bdb965b21b");
  EXPECT_EQ(config.size, 2);
  const HubFile& model = files.at("model.bin");
  EXPECT_EQ(model.check, HubFile::Check::kSha256);
  EXPECT_EQ(model.digest, "5c80c97b573921129844efefafa35c821dcc2d118fe48ac2ccd8321b98c57de7");
  EXPECT_EQ(model.size, 75538270);
  EXPECT_EQ(files.at("big.bin").check, HubFile::Check::kSize);
  // Hub-compatible servers that write "sha256:" before the digest, or capitals.
  const auto prefixed = parse_hub_listing(R"([{"type": "file", "path": "m", "size": 1,
      "lfs": {"oid": "sha256:5C80C97B573921129844EFEFAFA35C821DCC2D118FE48AC2CCD8321B98C57DE7", "size": 1}}])");
  EXPECT_EQ(prefixed.at("m").digest, "5c80c97b573921129844efefafa35c821dcc2d118fe48ac2ccd8321b98c57de7");
  EXPECT_EQ(hub_listing_url("https://huggingface.co", "ggml-org/whisper-vad"),
            "https://huggingface.co/api/models/ggml-org/whisper-vad/tree/main");
}

// Which files of a repository make the Whisper model auris downloads.
TEST(HubListing, ChoosesTheFilesOfTheWhisperModelARepositoryHolds) {
  const auto listing = [](std::initializer_list<const char*> names) {
    std::map<std::string, HubFile> files;
    for (const char* name : names) files[name] = HubFile{};
    return files;
  };
  using Files = std::vector<std::string>;
  EXPECT_EQ(whisper_model_files("o/ct2", listing({"README.md", "config.json", "model.bin", "tokenizer.json",
                                                  "vocabulary.txt", ".gitattributes"})),
            (Files{"config.json", "model.bin", "vocabulary.txt", "tokenizer.json"}));
  EXPECT_EQ(whisper_model_files("o/hf", listing({"config.json", "model.safetensors", "pytorch_model.bin", "vocab.json",
                                                 "merges.txt", "generation_config.json", "flax_model.msgpack"})),
            (Files{"config.json", "generation_config.json", "vocab.json", "merges.txt", "model.safetensors"}));
  EXPECT_EQ(whisper_model_files("o/shards", listing({"config.json", "model.safetensors.index.json", "vocab.json",
                                                     "merges.txt", "model-00002-of-00002.safetensors",
                                                     "model-00001-of-00002.safetensors"})),
            (Files{"config.json", "vocab.json", "merges.txt", "model.safetensors.index.json",
                   "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}));
  const std::string error =
      test::error_of([&] { whisper_model_files("o/onnx", listing({"config.json", "encoder_model.onnx", "vocab.json"})); });
  EXPECT_NE(error.find("the hub's repository o/onnx holds no Whisper model auris reads"), std::string::npos) << error;
}

TEST(HubListing, RefusesWhatIsNotAListing) {
  const struct {
    const char* json;
    const char* message;
  } cases[] = {
      {"<html>Not Found</html>", "not JSON"},
      {R"({"error": "Repository not found"})", "not a JSON array"},
      {"[1]", "not a file entry"},
      {R"([{"type": "file"}])", "without a type and a path"},
      {R"([{"type": "file", "path": "a", "oid": "9e26dfeeb6e641a33dae4961196235bdb965b21b"}])", "no size for a"},
      {R"([{"type": "file", "path": "a", "size": -1, "oid": "9e26dfeeb6e641a33dae4961196235bdb965b21b"}])", "no size"},
      {R"([{"type": "file", "path": "a", "size": 1, "oid": "XYZ"}])", "no Git blob id for a"},
      {R"([{"type": "file", "path": "m", "size": 1, "oid": "9e26dfeeb6e641a33dae4961196235bdb965b21b",
            "lfs": {"oid": "abc", "size": 1}}])", "no SHA-256 for m"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.json);
    const std::string error = test::error_of([&] { parse_hub_listing(c.json); });
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace auris
