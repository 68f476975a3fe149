// The downloader, exercised against a local "hub" served through file:// URLs (libcurl handles them
// like HTTP): real transfers, no network.
#include "model/model_download.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "auris/error.h"
#include "model/model_registry.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace auris {
namespace {

class Download : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test::temp_dir();
    hub_ = root_ + "/hub";
    cache_ = root_ + "/cache";
    setenv("AURIS_HUB_ENDPOINT", ("file://" + hub_).c_str(), 1);
  }
  void TearDown() override { unsetenv("AURIS_HUB_ENDPOINT"); }
  void publish(const std::string& repo, const std::string& file, const std::string& content) {
    fs::create_directories(hub_ + "/" + repo + "/resolve/main");
    std::ofstream(hub_ + "/" + repo + "/resolve/main/" + file) << content;
  }
  std::string root_, hub_, cache_;
};

TEST_F(Download, PlansTheRealHubLocations) {
  unsetenv("AURIS_HUB_ENDPOINT");
  const DownloadPlan ggml = plan_download("tiny.en", DownloadFormat::kGgml, "/c");
  ASSERT_EQ(ggml.urls.size(), 1u);
  EXPECT_EQ(ggml.urls[0], "https://huggingface.co/ggerganov/whisper.cpp/resolve/main/ggml-tiny.en.bin");
  const DownloadPlan ct2 = plan_download("large-v3", DownloadFormat::kCTranslate2, "/c");
  EXPECT_EQ(ct2.destination, "/c/large-v3");
  EXPECT_NE(std::find(ct2.files.begin(), ct2.files.end(), "vocabulary.json"), ct2.files.end());
  EXPECT_THROW(plan_download("huge-v9", DownloadFormat::kGgml, "/c"), Error);
}

TEST_F(Download, FetchesEveryFileIntoTheCache) {
  const DownloadPlan plan = plan_download("tiny.en", DownloadFormat::kCTranslate2, cache_);
  for (const std::string& f : plan.files) publish("Systran/faster-whisper-tiny.en", f, "content of " + f);
  long long reported = 0;
  run_download(plan, [&](const std::string&, long long done, long long) { reported = std::max(reported, done); });
  for (const std::string& f : plan.files) {
    std::ifstream in(plan.destination + "/" + f);
    std::string got((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(got, "content of " + f);
  }
  EXPECT_GT(reported, 0);
  EXPECT_FALSE(fs::exists(plan.destination + ".partial"));
}

TEST_F(Download, AMissingFileLeavesNoPartialModel) {
  const DownloadPlan plan = plan_download("tiny.en", DownloadFormat::kCTranslate2, cache_);
  publish("Systran/faster-whisper-tiny.en", "config.json", "{}");  // the rest is missing
  EXPECT_THROW(run_download(plan), Error);
  EXPECT_FALSE(fs::exists(plan.destination));
  EXPECT_FALSE(fs::exists(plan.destination + ".partial"));
}

// whisper.cpp's models/download-vad-model.sh: https://huggingface.co/ggml-org/whisper-vad/resolve/main/ggml-silero-v6.2.0.bin
TEST_F(Download, PlansTheVadModel) {
  unsetenv("AURIS_HUB_ENDPOINT");
  for (const char* name : {"silero-vad", "silero-v6.2.0"}) {
    const DownloadPlan plan = plan_vad_download(name, "/c");
    EXPECT_EQ(plan.name, "silero-vad");
    EXPECT_EQ(plan.destination, "/c/ggml-silero-v6.2.0.bin");
    ASSERT_EQ(plan.urls.size(), 1u);
    EXPECT_EQ(plan.urls[0], "https://huggingface.co/ggml-org/whisper-vad/resolve/main/ggml-silero-v6.2.0.bin");
  }
  EXPECT_NE(test::error_of([] { plan_vad_download("tiny.en", "/c"); }).find("known one is silero-vad"), std::string::npos);
  EXPECT_FALSE(find_registry_model("silero-vad"));  // not a Whisper model
}

TEST_F(Download, FetchesTheVadModelThenResolvesItsName) {
  const std::string missing = test::error_of([&] { resolve_vad_model_path("silero-vad", cache_); });
  EXPECT_NE(missing.find("run `auris download silero-vad`"), std::string::npos) << missing;
  publish("ggml-org/whisper-vad", "ggml-silero-v6.2.0.bin", "vad weights");
  run_download(plan_vad_download("silero-vad", cache_));
  const std::string path = cache_ + "/ggml-silero-v6.2.0.bin";
  EXPECT_EQ(resolve_vad_model_path("silero-vad", cache_), path);
  EXPECT_EQ(resolve_vad_model_path("silero-v6.2.0", cache_), path);
  EXPECT_EQ(resolve_vad_model_path(path, "/elsewhere"), path);  // a path that exists is taken as is
  EXPECT_NE(test::error_of([&] { resolve_vad_model_path("silero-v9", cache_); }).find("not found"), std::string::npos);
  EXPECT_NE(test::error_of([&] { resolve_vad_model_path(root_ + "/no/such.bin", cache_); }).find("not found"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { resolve_vad_model_path("", cache_); }).find("no VAD model given"), std::string::npos);
}

}  // namespace
}  // namespace auris
