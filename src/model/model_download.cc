#include "model/model_download.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "auris/error.h"
#include "model/hub_listing.h"
#include "model/model_registry.h"
#include "util/content_digest.h"

namespace fs = std::filesystem;

namespace auris {

std::string hub_endpoint() {
  const char* env = std::getenv("AURIS_HUB_ENDPOINT");
  std::string endpoint = env && *env ? env : "https://huggingface.co";
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  return endpoint;
}

namespace {

std::string file_url(const std::string& repo, const std::string& file) {
  return hub_endpoint() + "/" + repo + "/resolve/main/" + file;
}

using Progress = std::function<void(const std::string&, long long, long long)>;

// Where a transfer's bytes go: `take` returns false to stop it.
struct Transfer {
  std::function<bool(const char*, size_t)> take;
  std::string file;
  const Progress* progress;
  std::exception_ptr failure;  // thrown by take: kept across libcurl's C frames, rethrown after
};

size_t take_chunk(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  try {
    return t->take(data, size * count) ? size * count : 0;
  } catch (...) {
    t->failure = std::current_exception();
    return 0;
  }
}

int report_progress(void* user, curl_off_t total, curl_off_t done, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->progress && *t->progress) (*t->progress)(t->file, static_cast<long long>(done), static_cast<long long>(total));
  return 0;
}

// GETs url into t.take; throws auris::Error with the URL and what failed.
void transfer(const std::string& url, Transfer& t) {
  static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  if (!initialised) throw Error("cannot initialise libcurl");
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) throw Error("cannot initialise libcurl");
  char message[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, take_chunk);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(curl.get(), CURLOPT_XFERINFOFUNCTION, report_progress);
  curl_easy_setopt(curl.get(), CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(curl.get(), CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, message);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(curl.get(), CURLOPT_LOW_SPEED_LIMIT, 1L);  // give up on a stalled transfer
  curl_easy_setopt(curl.get(), CURLOPT_LOW_SPEED_TIME, 60L);
  const CURLcode rc = curl_easy_perform(curl.get());
  if (t.failure) std::rethrow_exception(t.failure);
  if (rc != CURLE_OK)
    throw Error("download of " + url + " failed: " + (message[0] ? message : curl_easy_strerror(rc)));
}

// The hub's listing of a repository's files, which every downloaded file is checked against.
std::map<std::string, HubFile> fetch_listing(const std::string& repo) {
  constexpr size_t kMaxListingBytes = 16 << 20;
  const std::string url = hub_listing_url(hub_endpoint(), repo);
  std::string text;
  bool too_long = false;
  Transfer t{[&](const char* data, size_t size) {
               too_long = text.size() + size > kMaxListingBytes;
               if (!too_long) text.append(data, size);
               return !too_long;
             },
             "", nullptr, nullptr};
  try {
    transfer(url, t);
  } catch (const Error& e) {
    throw Error(std::string(too_long ? "the hub's file listing is over 16 MiB: " + url : e.what()) +
                " (auris checks every file it downloads against the hub's listing; a mirror set by "
                "AURIS_HUB_ENDPOINT must serve /api/models/REPO/tree/main too)");
  }
  return parse_hub_listing(text);
}

// Downloads url into target and checks it against the hub's entry for it.
void fetch(const std::string& url, const fs::path& target, const std::string& file, const HubFile& expected,
           const Progress& progress) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(target.c_str(), "wb"), std::fclose);
  if (!out) throw Error("cannot write '" + target.string() + "': check the cache directory is writable");
  ContentDigest digest =
      expected.check == HubFile::Check::kGitBlob ? ContentDigest::git_blob(expected.size) : ContentDigest::sha256();
  long long received = 0;
  bool too_long = false, write_failed = false;
  int write_error = 0;
  Transfer t{[&](const char* data, size_t size) {
               received += static_cast<long long>(size);
               too_long = received > expected.size;  // not a byte more than the listing's size is written
               if (too_long) return false;
               digest.update(data, size);
               write_failed = std::fwrite(data, 1, size, out.get()) != size;
               if (write_failed) write_error = errno;
               return !write_failed;
             },
             file, &progress, nullptr};
  try {
    transfer(url, t);
  } catch (const Error&) {
    if (!too_long && !write_failed) throw;
  }
  if (!write_failed && std::fflush(out.get()) != 0) {
    write_failed = true;
    write_error = errno;
  }
  if (write_failed)
    throw Error("cannot write '" + target.string() + "': " + std::strerror(write_error) + " (is the disk full?)");
  if (too_long || received != expected.size)
    throw Error("download of " + url + " is " + (too_long ? "longer" : "shorter") + " than the " +
                std::to_string(expected.size) + " bytes the hub lists for it; nothing was kept: run the download again");
  if (expected.check == HubFile::Check::kSize) return;
  const std::string got = digest.hex();
  if (got != expected.digest)
    throw Error("download of " + url + " is corrupt: its " +
                (expected.check == HubFile::Check::kSha256 ? "SHA-256" : "Git blob id") + " is " + got +
                ", the hub lists " + expected.digest + "; nothing was kept: run the download again");
}

// An exclusive flock on a file beside the destination, held for a download's lifetime. The file stays
// (removing it would let a process that opened it before lock a file no longer there).
class DownloadLock {
 public:
  explicit DownloadLock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0) throw Error("cannot write '" + path + "': " + std::strerror(errno) + " (check the model cache is writable)");
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) {
        const int error = errno;
        ::close(fd_);
        throw Error("cannot lock '" + path + "': " + std::strerror(error));
      }
  }
  ~DownloadLock() { ::close(fd_); }  // and with it the lock
  DownloadLock(const DownloadLock&) = delete;
  DownloadLock& operator=(const DownloadLock&) = delete;

 private:
  int fd_;
};

// Refuses a download its disk has no room for, before a byte of it is fetched (a large-v3 is 3 GB).
void require_free_space(const DownloadPlan& plan, const std::vector<HubFile>& files) {
  long long needed = 0;
  for (const HubFile& file : files) needed += file.size;
  const fs::path directory = fs::path(plan.destination).parent_path();
  struct statvfs disk {};
  if (::statvfs(directory.c_str(), &disk) != 0) return;  // the writes will say what is wrong
  const auto available = static_cast<long double>(disk.f_bavail) * static_cast<long double>(disk.f_frsize);
  const auto megabytes = [](long double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes / 1e6));
    return std::string(text);
  };
  if (needed > available)
    throw Error("downloading " + plan.name + " needs " + megabytes(needed) + " in " + directory.string() + ", which has " +
                megabytes(available) + " free: free some space, or set AURIS_MODEL_DIR to a disk with more");
}

// One file (a ggml model) straight into the cache directory.
DownloadPlan single_file_plan(const std::string& name, const std::string& repo, const std::string& file,
                              const std::string& cache_dir) {
  DownloadPlan plan;
  plan.name = name;
  plan.destination = (fs::path(cache_dir) / file).string();
  plan.files = {file};
  plan.urls = {file_url(repo, file)};
  plan.repo = repo;
  return plan;
}

}  // namespace

DownloadPlan plan_download(const std::string& name, DownloadFormat format, const std::string& cache_dir) {
  const RegistryModel model = registry_model(name);
  DownloadPlan plan;
  plan.name = model.name;
  switch (format) {
    case DownloadFormat::kGgml:
      if (model.ggml_file.empty()) throw Error("no whisper.cpp ggml file is published for " + model.name);
      return single_file_plan(model.name, model.ggml_repo, model.ggml_file, cache_dir);
    case DownloadFormat::kCTranslate2: {
      if (model.ct2_repo.empty()) throw Error("no CTranslate2 conversion is published for " + model.name);
      plan.destination = (fs::path(cache_dir) / model.name).string();
      const std::string vocabulary = model.n_vocab == 51866 ? "vocabulary.json" : "vocabulary.txt";
      plan.files = {"config.json", "model.bin", "tokenizer.json", vocabulary};
      for (const auto& f : plan.files) plan.urls.push_back(file_url(model.ct2_repo, f));
      plan.repo = model.ct2_repo;
      return plan;
    }
    case DownloadFormat::kHuggingFace:
      if (model.hf_repo.empty()) throw Error("no Hugging Face checkpoint is published for " + model.name);
      plan.destination = (fs::path(cache_dir) / (model.name + "-hf")).string();
      plan.files = {"config.json", "generation_config.json", "model.safetensors", "vocab.json", "merges.txt",
                    "tokenizer.json"};
      for (const auto& f : plan.files) plan.urls.push_back(file_url(model.hf_repo, f));
      plan.repo = model.hf_repo;
      return plan;
  }
  throw Error("unknown download format");
}

DownloadPlan plan_vad_download(const std::string& name, const std::string& cache_dir) {
  const auto model = find_vad_model(name);
  if (!model) throw Error("unknown VAD model '" + name + "': the known one is silero-vad");
  return single_file_plan(model->name, model->ggml_repo, model->ggml_file, cache_dir);
}

std::string resolve_vad_model_path(const std::string& path_or_name, const std::string& cache_dir) {
  if (path_or_name.empty()) throw Error("no VAD model given: pass silero-vad or the path of a ggml VAD file");
  if (fs::exists(path_or_name)) return path_or_name;
  const auto model = find_vad_model(path_or_name);
  if (!model)
    throw Error("VAD model '" + path_or_name + "' not found: pass silero-vad (after `auris download silero-vad`) "
                "or the path of a whisper.cpp ggml VAD file such as ggml-silero-v6.2.0.bin");
  const fs::path cached = fs::path(cache_dir) / model->ggml_file;
  if (fs::exists(cached)) return cached.string();
  throw Error("VAD model '" + path_or_name + "' is not in the cache (looked for " + cached.string() +
              "): run `auris download silero-vad`, or pass the path of a ggml VAD file");
}

void run_download(const DownloadPlan& plan,
                  const std::function<void(const std::string&, long long, long long)>& progress, IfPresent if_present) {
  const fs::path dest(plan.destination);
  std::error_code ec;
  fs::create_directories(dest.parent_path(), ec);
  const DownloadLock lock(dest.string() + ".lock");
  if (if_present == IfPresent::kKeep && fs::exists(dest, ec)) return;
  const fs::path partial = dest.string() + ".partial";
  fs::remove_all(partial, ec);
  const bool single_file = plan.files.size() == 1 && dest.filename() == plan.files[0];
  try {
    const std::map<std::string, HubFile> listing = fetch_listing(plan.repo);
    std::vector<HubFile> expected;
    for (size_t i = 0; i < plan.files.size(); ++i) {
      const auto file = listing.find(plan.files[i]);
      if (file == listing.end())
        throw Error("the hub does not list " + plan.files[i] + " in " + plan.repo + " (" + plan.urls[i] + ")");
      expected.push_back(file->second);
    }
    require_free_space(plan, expected);
    fs::create_directories(single_file ? dest.parent_path() : partial);
    for (size_t i = 0; i < plan.files.size(); ++i)
      fetch(plan.urls[i], single_file ? partial : partial / plan.files[i], plan.files[i], expected[i], progress);
    fs::remove_all(dest, ec);
    fs::rename(partial, dest);
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(partial, ec);
    throw Error(std::string("cannot write the model into the cache: ") + e.what());
  } catch (...) {
    fs::remove_all(partial, ec);
    throw;
  }
}

}  // namespace auris
