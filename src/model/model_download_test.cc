// The downloader, exercised against a local "hub" served through file:// URLs (tests/file_hub.h):
// real transfers, no network.
#include "model/model_download.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <vector>

#include "auris/download.h"
#include "auris/error.h"
#include "file_hub.h"
#include "model/model_registry.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace auris {
namespace {

class Download : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = root_ + "/cache";
    setenv("AURIS_HUB_ENDPOINT", hub_.endpoint().c_str(), 1);
  }
  void TearDown() override { unsetenv("AURIS_HUB_ENDPOINT"); }
  void publish(const std::string& repo, const std::string& file, const std::string& content) {
    hub_.publish_text(repo, file, content);
  }
  // Publishes tiny.en's four files and returns its plan.
  DownloadPlan publish_tiny_en() {
    const DownloadPlan plan = plan_download("tiny.en", DownloadFormat::kCTranslate2, cache_);
    for (const std::string& f : plan.files) publish(kTinyEnRepo, f, "content of " + f);
    return plan;
  }
  void expect_nothing_kept(const DownloadPlan& plan) {
    EXPECT_FALSE(fs::exists(plan.destination));
    EXPECT_FALSE(fs::exists(plan.destination + ".partial"));
  }
  static constexpr const char* kTinyEnRepo = "Systran/faster-whisper-tiny.en";
  std::string root_ = test::temp_dir(), cache_;
  test::FileHub hub_{root_ + "/hub"};
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
  const DownloadPlan plan = publish_tiny_en();
  EXPECT_EQ(plan.repo, kTinyEnRepo);
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
  publish(kTinyEnRepo, "config.json", "{}");  // the rest is missing
  const std::string error = test::error_of([&] { run_download(plan); });
  EXPECT_NE(error.find("the hub does not list model.bin in " + std::string(kTinyEnRepo)), std::string::npos) << error;
  expect_nothing_kept(plan);
}

// Each file is checked against the hub's listing: model.bin (LFS) by its SHA-256, config.json (Git)
// by its blob id, both by their size. A file that differs leaves nothing in the cache.
TEST_F(Download, AFileThatIsNotWhatTheHubListsIsRefused) {
  const struct {
    std::string file, served, message;
  } cases[] = {
      {"model.bin", "content of model.biN", "is corrupt: its SHA-256 is"},
      {"config.json", "content of config.jsoN", "is corrupt: its Git blob id is"},
      {"model.bin", "content of model.bin, and more", "is longer than the 20 bytes the hub lists"},
      {"tokenizer.json", "content", "is shorter than the 25 bytes the hub lists"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file + ": " + c.served);
    const DownloadPlan plan = publish_tiny_en();
    std::ofstream(hub_.served_path(kTinyEnRepo, c.file)) << c.served;
    const std::string error = test::error_of([&] { run_download(plan); });
    EXPECT_NE(error.find("download of " + hub_.endpoint() + "/" + kTinyEnRepo + "/resolve/main/" + c.file + " " + c.message),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("nothing was kept: run the download again"), std::string::npos) << error;
    expect_nothing_kept(plan);
  }
}

// Two commands started together on a fresh machine both fetch the model: they take turns, and the
// second keeps what the first fetched. Without the turns both wrote into one partial directory.
TEST_F(Download, DownloadsOfOneModelTakeTurns) {
  const DownloadPlan plan = publish_tiny_en();
  std::mutex mutex;
  std::set<std::thread::id> fetched_by;
  const auto progress = [&](const std::string&, long long, long long) {
    {
      const std::lock_guard lock(mutex);
      fetched_by.insert(std::this_thread::get_id());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a transfer long enough for the others to start
  };
  std::vector<std::thread> commands;
  std::vector<std::string> errors(4);
  for (std::string& error : errors)
    commands.emplace_back([&] { error = test::error_of([&] { run_download(plan, progress, IfPresent::kKeep); }); });
  for (std::thread& command : commands) command.join();
  for (const std::string& error : errors) EXPECT_EQ(error, "(no error)");
  EXPECT_EQ(fetched_by.size(), 1u);
  for (const std::string& f : plan.files) {
    std::ifstream in(plan.destination + "/" + f);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "content of " + f);
  }
  run_download(plan, progress);  // kReplace, as `auris download` asks: fetched again
  EXPECT_EQ(fetched_by.size(), 2u);
}

// A disk that fills up mid-download: the message says so, and nothing is kept. A file size limit
// stands in for the full disk (writes past it fail with EFBIG once SIGXFSZ is ignored).
TEST_F(Download, ADiskThatFillsUpSaysSo) {
  const DownloadPlan plan = publish_tiny_en();
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 8;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  const std::string error = test::error_of([&] { run_download(plan); });
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(error.find("cannot write '" + plan.destination + ".partial/"), std::string::npos) << error;
  EXPECT_NE(error.find("(is the disk full?)"), std::string::npos) << error;
  expect_nothing_kept(plan);
}

// A model larger than the disk's free space is refused before any of it is fetched.
TEST_F(Download, AModelTheDiskHasNoRoomForIsRefusedFirst) {
  const DownloadPlan plan = publish_tiny_en();
  nlohmann::json listing = nlohmann::json::parse(std::ifstream(hub_.listing_path(kTinyEnRepo)));
  for (nlohmann::json& entry : listing)
    if (entry["path"] == "model.bin") entry["size"] = entry["lfs"]["size"] = 1LL << 60;  // an exabyte
  std::ofstream(hub_.listing_path(kTinyEnRepo)) << listing.dump();
  bool fetched = false;
  const std::string error =
      test::error_of([&] { run_download(plan, [&](const std::string&, long long, long long) { fetched = true; }); });
  EXPECT_NE(error.find("downloading tiny.en needs 1152921504606.8 MB in " + cache_ + ", which has "), std::string::npos)
      << error;
  EXPECT_NE(error.find("free: free some space, or set AURIS_MODEL_DIR to a disk with more"), std::string::npos) << error;
  EXPECT_FALSE(fetched);
  expect_nothing_kept(plan);
}

// The largest and smallest byte counts progress reported for each file.
struct ProgressSeen {
  std::map<std::string, std::pair<long long, long long>> range;  // file: lowest, highest done
  DownloadProgress report() {
    return [this](const std::string& file, long long done, long long) {
      auto [it, fresh] = range.try_emplace(file, done, done);
      it->second = {std::min(it->second.first, done), std::max(it->second.second, done)};
    };
  }
};

// A download cut off (the network, Ctrl-C) keeps what arrived; the next run asks only for the rest
// of a file (a Range request), skips the files it has whole, and checks every file whole.
TEST_F(Download, AnInterruptedDownloadContinuesWhereItStopped) {
  const DownloadPlan plan = publish_tiny_en();
  fs::create_directories(plan.destination + ".partial");
  std::ofstream(plan.destination + ".partial/config.json") << "content of config.json";
  std::ofstream(plan.destination + ".partial/model.bin") << "content";  // 7 of its 20 bytes
  ProgressSeen seen;
  run_download(plan, seen.report());
  for (const std::string& f : plan.files) {
    std::ifstream in(plan.destination + "/" + f);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "content of " + f);
  }
  EXPECT_EQ(seen.range.count("config.json"), 0u) << "held whole: not fetched again";
  EXPECT_EQ(seen.range.at("model.bin").first, 7) << "only the rest was asked for";
  EXPECT_EQ(seen.range.at("model.bin").second, 20);
  EXPECT_EQ(seen.range.at("tokenizer.json").first, 0);
  EXPECT_FALSE(fs::exists(plan.destination + ".partial"));
}

// What an earlier run left may be the start of another version of the file: checked whole, it is not
// what the hub lists, so the file is fetched again from its start.
TEST_F(Download, APartialFileOfAnotherVersionIsFetchedAgain) {
  const DownloadPlan plan = publish_tiny_en();
  fs::create_directories(plan.destination + ".partial");
  std::ofstream(plan.destination + ".partial/model.bin") << "CONTENT";
  std::ofstream(plan.destination + ".partial/config.json") << "content of config.jsoN";  // whole, but not it
  ProgressSeen seen;
  run_download(plan, seen.report());
  for (const std::string& f : plan.files) {
    std::ifstream in(plan.destination + "/" + f);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "content of " + f);
  }
  EXPECT_EQ(seen.range.at("model.bin").first, 0) << "fetched again from its start";
  EXPECT_EQ(seen.range.at("config.json").first, 0);
}

TEST_F(Download, AFailedTransferKeepsWhatArrivedForTheNextRun) {
  const DownloadPlan plan = publish_tiny_en();
  const std::string served = hub_.served_path(kTinyEnRepo, "tokenizer.json");
  fs::rename(served, served + ".away");  // listed, but the transfer fails
  const std::string error = test::error_of([&] { run_download(plan); });
  EXPECT_NE(error.find("download of " + hub_.endpoint() + "/" + kTinyEnRepo + "/resolve/main/tokenizer.json failed"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("(what arrived is kept: run the download again to continue it)"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(plan.destination));
  EXPECT_TRUE(fs::exists(plan.destination + ".partial/model.bin"));
  fs::rename(served + ".away", served);
  ProgressSeen seen;
  run_download(plan, seen.report());
  EXPECT_EQ(seen.range.count("model.bin"), 0u) << "held whole: not fetched again";
  EXPECT_EQ(seen.range.count("tokenizer.json"), 1u);
  EXPECT_TRUE(fs::exists(plan.destination + "/tokenizer.json"));
}

// Over real HTTP on loopback, shaped as the Hub answers: the listing from /api, each file a redirect
// to a CDN. This CDN ignores Range headers (answers 200 with the whole file), so a run that holds a
// partial file is refused the resume and fetches the file from its start.
TEST_F(Download, OverHttpWithRedirectsAndAServerThatWillNotResume) {
  const std::string content = "content of model.bin";
  httplib::Server server;
  std::atomic<int> range_requests{0};
  const std::string listing_path = hub_.listing_path(kTinyEnRepo);
  publish_tiny_en();  // the listing and the files to serve
  server.Get("/api/models/Systran/faster-whisper-tiny.en/tree/main", [&](const httplib::Request&, httplib::Response& res) {
    std::ifstream in(listing_path);
    res.set_content(std::string(std::istreambuf_iterator<char>(in), {}), "application/json");
  });
  server.Get(R"(/Systran/faster-whisper-tiny.en/resolve/main/(.+))", [](const httplib::Request& req, httplib::Response& res) {
    res.set_redirect("/cdn/" + req.matches[1].str());
  });
  server.Get(R"(/cdn/(.+))", [&](const httplib::Request& req, httplib::Response& res) {
    if (req.has_header("Range")) ++range_requests;
    std::ifstream in(hub_.served_path(kTinyEnRepo, req.matches[1].str()));
    res.status = 200;  // the whole file, whatever the Range header asks
    res.set_content(std::string(std::istreambuf_iterator<char>(in), {}), "application/octet-stream");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { server.listen_after_bind(); });  // bound and listening: connections wait
  setenv("AURIS_HUB_ENDPOINT", ("http://127.0.0.1:" + std::to_string(port)).c_str(), 1);
  const DownloadPlan plan = plan_download("tiny.en", DownloadFormat::kCTranslate2, cache_);
  fs::create_directories(plan.destination + ".partial");
  std::ofstream(plan.destination + ".partial/model.bin") << "content";
  const std::string error = test::error_of([&] { run_download(plan); });
  server.stop();
  serving.join();
  EXPECT_EQ(error, "(no error)");
  EXPECT_EQ(range_requests.load(), 1);
  std::ifstream in(plan.destination + "/model.bin");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), content);
}

// A repository named as faster-whisper's WhisperModel takes it ("owner/name"): its Whisper model's
// files, chosen from the listing, into cache/owner--name.
TEST_F(Download, AHubRepositorysModelComesWithTheFilesItNeeds) {
  EXPECT_TRUE(is_hub_repo_id("someone/whisper-small-ct2"));
  for (const char* not_one : {"tiny.en", "/abs/path", "a/b/c", "./model", "../x/y", "a/", "/b", "a/.b", "a b/c"})
    EXPECT_FALSE(is_hub_repo_id(not_one)) << not_one;
  const std::string repo = "someone/whisper-tiny-ct2";
  for (const char* file : {"config.json", "model.bin", "vocabulary.txt", "README.md"}) publish(repo, file, std::string("content of ") + file);
  const DownloadPlan plan = plan_repo_download(repo, cache_);
  EXPECT_EQ(plan.destination, cache_ + "/someone--whisper-tiny-ct2");
  run_download(plan);
  for (const char* file : {"config.json", "model.bin", "vocabulary.txt"}) EXPECT_TRUE(fs::exists(plan.destination + "/" + file)) << file;
  EXPECT_FALSE(fs::exists(plan.destination + "/README.md"));
}

// A hub (or a mirror) that does not list the repository's files: nothing is downloaded unchecked.
TEST_F(Download, NoListingNoDownload) {
  const DownloadPlan plan = publish_tiny_en();
  fs::remove(hub_.listing_path(kTinyEnRepo));
  std::string error = test::error_of([&] { run_download(plan); });
  EXPECT_NE(error.find("/api/models/" + std::string(kTinyEnRepo) + "/tree/main"), std::string::npos) << error;
  EXPECT_NE(error.find("a mirror set by AURIS_HUB_ENDPOINT must serve /api/models/REPO/tree/main"), std::string::npos)
      << error;
  expect_nothing_kept(plan);
  std::ofstream(hub_.listing_path(kTinyEnRepo)) << "<html>rate limited</html>";
  error = test::error_of([&] { run_download(plan); });
  EXPECT_NE(error.find("the hub's file listing is not JSON"), std::string::npos) << error;
  expect_nothing_kept(plan);
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
