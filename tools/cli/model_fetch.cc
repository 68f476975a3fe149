#include "model_fetch.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "auris/error.h"
#include "auris/model.h"
#include "model/model_registry.h"

namespace auris::cli {

namespace {

bool offline() {
  const char* value = std::getenv("AURIS_OFFLINE");
  return value && *value && std::strcmp(value, "0") != 0;
}

void announce(const DownloadPlan& plan) {
  std::fprintf(stderr, "auris: %s is not in the model cache, so it is downloaded first (AURIS_OFFLINE=1 turns this off)\n",
               plan.name.c_str());
}

}  // namespace

void download_with_progress(const DownloadPlan& plan, const std::string& format, IfPresent if_present) {
  const bool tty = ::isatty(STDERR_FILENO);
  std::fprintf(stderr, "auris: downloading %s (%s) from %s into %s\n", plan.name.c_str(), format.c_str(),
               hub_endpoint().c_str(), plan.destination.c_str());
  run_download(plan, [tty](const std::string& file, long long done, long long total) {
    if (!tty || total <= 0) return;
    std::fprintf(stderr, "\r  %-24s %5.1f%% of %.1f MB", file.c_str(), 100.0 * done / total, total / 1e6);
  }, if_present);
  if (tty) std::fprintf(stderr, "\n");
}

std::string fetched_model(const std::string& name_or_path) {
  try {
    return resolve_model_path(name_or_path);
  } catch (const Error&) {
    if (offline() || (!find_registry_model(name_or_path) && !is_hub_repo_id(name_or_path))) throw;
  }
  const bool repo = !find_registry_model(name_or_path);
  const DownloadPlan plan = repo ? plan_repo_download(name_or_path, model_cache_dir())
                                 : plan_download(name_or_path, DownloadFormat::kCTranslate2, model_cache_dir());
  announce(plan);
  download_with_progress(plan, repo ? "its Whisper model" : "ct2", IfPresent::kKeep);  // another process may be fetching it too
  return plan.destination;
}

std::string fetched_vad_model(const std::string& name_or_path) {
  try {
    return resolve_vad_model_path(name_or_path, model_cache_dir());
  } catch (const Error&) {
    if (offline() || !find_vad_model(name_or_path)) throw;
  }
  const DownloadPlan plan = plan_vad_download(name_or_path, model_cache_dir());
  announce(plan);
  download_with_progress(plan, "ggml", IfPresent::kKeep);
  return plan.destination;
}

}  // namespace auris::cli
