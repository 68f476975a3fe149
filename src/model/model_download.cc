#include "model/model_download.h"

#include <curl/curl.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "auris/error.h"
#include "model/model_registry.h"

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

struct Transfer {
  std::FILE* out;
  std::string file;
  const std::function<void(const std::string&, long long, long long)>* progress;
};

size_t write_chunk(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  return std::fwrite(data, size, count, t->out) * size;
}

int report_progress(void* user, curl_off_t total, curl_off_t done, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (*t->progress) (*t->progress)(t->file, static_cast<long long>(done), static_cast<long long>(total));
  return 0;
}

void fetch(const std::string& url, const fs::path& target, const std::string& file,
           const std::function<void(const std::string&, long long, long long)>& progress) {
  static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  if (!initialised) throw Error("cannot initialise libcurl");
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(target.c_str(), "wb"), std::fclose);
  if (!curl || !out) throw Error("cannot write '" + target.string() + "': check the cache directory is writable");
  Transfer t{out.get(), file, &progress};
  char message[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, write_chunk);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(curl.get(), CURLOPT_XFERINFOFUNCTION, report_progress);
  curl_easy_setopt(curl.get(), CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(curl.get(), CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl.get(), CURLOPT_ERRORBUFFER, message);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT, 30L);
  curl_easy_setopt(curl.get(), CURLOPT_LOW_SPEED_LIMIT, 1L);  // give up on a stalled transfer
  curl_easy_setopt(curl.get(), CURLOPT_LOW_SPEED_TIME, 60L);
  const CURLcode rc = curl_easy_perform(curl.get());
  if (rc != CURLE_OK)
    throw Error("download of " + url + " failed: " + (message[0] ? message : curl_easy_strerror(rc)));
  if (std::fflush(out.get()) != 0) throw Error("cannot write '" + target.string() + "': disk full?");
}

// One file (a ggml model) straight into the cache directory.
DownloadPlan single_file_plan(const std::string& name, const std::string& repo, const std::string& file,
                              const std::string& cache_dir) {
  DownloadPlan plan;
  plan.name = name;
  plan.destination = (fs::path(cache_dir) / file).string();
  plan.files = {file};
  plan.urls = {file_url(repo, file)};
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
      return plan;
    }
    case DownloadFormat::kHuggingFace:
      if (model.hf_repo.empty()) throw Error("no Hugging Face checkpoint is published for " + model.name);
      plan.destination = (fs::path(cache_dir) / (model.name + "-hf")).string();
      plan.files = {"config.json", "generation_config.json", "model.safetensors", "vocab.json", "merges.txt",
                    "tokenizer.json"};
      for (const auto& f : plan.files) plan.urls.push_back(file_url(model.hf_repo, f));
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
                  const std::function<void(const std::string&, long long, long long)>& progress) {
  const fs::path dest(plan.destination);
  const fs::path partial = dest.string() + ".partial";
  std::error_code ec;
  fs::remove_all(partial, ec);
  const bool single_file = plan.files.size() == 1 && dest.filename() == plan.files[0];
  try {
    fs::create_directories(single_file ? dest.parent_path() : partial);
    for (size_t i = 0; i < plan.files.size(); ++i)
      fetch(plan.urls[i], single_file ? partial : partial / plan.files[i], plan.files[i], progress);
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
