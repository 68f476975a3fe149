#include "model/model_download.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "auris/error.h"
#include "model/hub_listing.h"
#include "model/model_registry.h"
#include "model/url_transfer.h"
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

// The hub's listing of a repository's files, which every downloaded file is checked against.
std::map<std::string, HubFile> fetch_listing(const std::string& repo) {
  constexpr size_t kMaxListingBytes = 16 << 20;
  UrlTransfer t;
  t.url = hub_listing_url(hub_endpoint(), repo);
  std::string text;
  bool too_long = false;
  t.take = [&](const char* data, size_t size) {
    too_long = text.size() + size > kMaxListingBytes;
    if (!too_long) text.append(data, size);
    return !too_long;
  };
  const std::string why = " (auris checks every file it downloads against the hub's listing; a mirror set by "
                          "AURIS_HUB_ENDPOINT must serve /api/models/REPO/tree/main too)";
  try {
    run_transfer(t);
  } catch (const TransferFailed& e) {
    throw Error(e.what() + why);
  }
  if (too_long) throw Error("the hub's file listing is over 16 MiB: " + t.url + why);
  return parse_hub_listing(text);
}

// A file that is not what the hub lists. resumed: it continued a partial file an interrupted run
// left, which may have been another version's, so it is fetched again from the start.
class NotAsListed : public Error {
 public:
  NotAsListed(const std::string& message, bool resumed) : Error(message), resumed(resumed) {}
  bool resumed;
};

// Adds the first `size` bytes of the file at path to digest.
void digest_file(const fs::path& path, long long size, ContentDigest& digest) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!in) throw Error("cannot read '" + path.string() + "': " + std::strerror(errno));
  std::vector<char> block(1 << 20);
  for (long long left = size; left > 0;) {
    const size_t read = std::fread(block.data(), 1, static_cast<size_t>(std::min<long long>(left, 1 << 20)), in.get());
    if (read == 0) throw Error("cannot read '" + path.string() + "'");
    digest.update(block.data(), read);
    left -= static_cast<long long>(read);
  }
}

// Downloads url into target, continuing (resume) what an interrupted run left there, and checks the
// whole against the hub's entry for it.
void fetch_once(const std::string& url, const fs::path& target, const std::string& file, const HubFile& expected,
                const Progress& progress, bool resume) {
  std::error_code ec;
  long long held = resume && fs::is_regular_file(target, ec) ? static_cast<long long>(fs::file_size(target, ec)) : 0;
  if (ec || held > expected.size) held = 0;
  ContentDigest digest =
      expected.check == HubFile::Check::kGitBlob ? ContentDigest::git_blob(expected.size) : ContentDigest::sha256();
  if (held > 0) digest_file(target, held, digest);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(target.c_str(), held > 0 ? "ab" : "wb"), std::fclose);
  if (!out) throw Error("cannot write '" + target.string() + "': check the cache directory is writable");
  long long received = held;
  bool too_long = false, write_failed = false;
  int write_error = 0;
  UrlTransfer t;
  t.url = url;
  t.resume_from = held;
  t.take = [&](const char* data, size_t size) {
    received += static_cast<long long>(size);
    too_long = received > expected.size;  // not a byte more than the listing's size is written
    if (too_long) return false;
    digest.update(data, size);
    write_failed = std::fwrite(data, 1, size, out.get()) != size;
    if (write_failed) write_error = errno;
    return !write_failed;
  };
  if (progress) t.progress = [&](long long done, long long total) { progress(file, done, total); };
  if (held < expected.size) run_transfer(t);
  if (!write_failed && std::fflush(out.get()) != 0) {
    write_failed = true;
    write_error = errno;
  }
  if (write_failed)
    throw Error("cannot write '" + target.string() + "': " + std::strerror(write_error) + " (is the disk full?)");
  if (too_long || received != expected.size)
    throw NotAsListed("download of " + url + " is " + (too_long ? "longer" : "shorter") + " than the " +
                          std::to_string(expected.size) + " bytes the hub lists for it; nothing was kept: run the "
                          "download again",
                      held > 0);
  if (expected.check == HubFile::Check::kSize) return;
  const std::string got = digest.hex();
  if (got != expected.digest)
    throw NotAsListed("download of " + url + " is corrupt: its " +
                          (expected.check == HubFile::Check::kSha256 ? "SHA-256" : "Git blob id") + " is " + got +
                          ", the hub lists " + expected.digest + "; nothing was kept: run the download again",
                      held > 0);
}

// fetch_once, resuming; from the start where the resumed file is not what the hub lists (another
// version's start) or the server will not resume.
void fetch(const std::string& url, const fs::path& target, const std::string& file, const HubFile& expected,
           const Progress& progress) {
  try {
    return fetch_once(url, target, file, expected, progress, /*resume=*/true);
  } catch (const NotAsListed& e) {
    if (!e.resumed) throw;
  } catch (const TransferFailed& e) {
    if (!e.range_refused) throw;
  }
  fetch_once(url, target, file, expected, progress, /*resume=*/false);
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
// targets: where each file goes; what an interrupted run left there is not fetched again.
void require_free_space(const DownloadPlan& plan, const std::vector<HubFile>& files,
                        const std::vector<fs::path>& targets) {
  long long needed = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    const auto held = fs::is_regular_file(targets[i], ec) ? static_cast<long long>(fs::file_size(targets[i], ec)) : 0;
    needed += files[i].size - (!ec && held <= files[i].size ? held : 0);
  }
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

bool is_hub_repo_id(const std::string& text) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size() || text.find('/', slash + 1) != std::string::npos)
    return false;
  if (text.front() == '.' || text[slash + 1] == '.' || text.size() > 200) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '-' || c == '_' || c == '.';
  });
}

std::string hub_repo_cache_path(const std::string& repo, const std::string& cache_dir) {
  std::string name = repo;
  name.replace(name.find('/'), 1, "--");
  return (fs::path(cache_dir) / name).string();
}

DownloadPlan plan_repo_download(const std::string& repo, const std::string& cache_dir) {
  if (!is_hub_repo_id(repo)) throw Error("'" + repo + "' is not a hub repository id such as Systran/faster-whisper-small");
  DownloadPlan plan;
  plan.name = repo;
  plan.repo = repo;
  plan.destination = hub_repo_cache_path(repo, cache_dir);
  return plan;  // its files come from the listing
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
  // An interrupted run's partial files are continued (and checked whole).
  const fs::path partial = dest.string() + ".partial";
  const bool single_file = plan.files.size() == 1 && dest.filename() == plan.files[0];
  try {
    const std::map<std::string, HubFile> listing = fetch_listing(plan.repo);
    std::vector<std::string> files = plan.files, urls = plan.urls;
    if (files.empty())
      for (const std::string& file : whisper_model_files(plan.repo, listing)) {
        files.push_back(file);
        urls.push_back(file_url(plan.repo, file));
      }
    std::vector<HubFile> expected;
    for (size_t i = 0; i < files.size(); ++i) {
      const auto file = listing.find(files[i]);
      if (file == listing.end()) throw Error("the hub does not list " + files[i] + " in " + plan.repo + " (" + urls[i] + ")");
      expected.push_back(file->second);
    }
    std::vector<fs::path> targets;
    for (const std::string& file : files) targets.push_back(single_file ? partial : partial / file);
    require_free_space(plan, expected, targets);
    fs::create_directories(single_file ? dest.parent_path() : partial);
    for (size_t i = 0; i < files.size(); ++i) fetch(urls[i], targets[i], files[i], expected[i], progress);
    fs::remove_all(dest, ec);
    fs::rename(partial, dest);
  } catch (const TransferFailed& e) {
    throw Error(std::string(e.what()) + " (what arrived is kept: run the download again to continue it)");
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(partial, ec);
    throw Error(std::string("cannot write the model into the cache: ") + e.what());
  } catch (...) {
    fs::remove_all(partial, ec);
    throw;
  }
}

}  // namespace auris
