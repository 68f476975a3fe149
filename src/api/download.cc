// include/auris/download.h over the registry (model/model_registry.h) and the downloader
// (model/model_download.h) that `auris download` uses.
#include "auris/download.h"


#include "auris/model.h"
#include "model/model_download.h"
#include "model/model_registry.h"

namespace auris {

std::vector<std::string> available_models() {
  std::vector<std::string> names;
  for (const RegistryModel& model : registry_models()) names.push_back(model.name);
  return names;
}

std::string download_model(const std::string& name, const std::string& cache_dir, const DownloadProgress& progress) {
  const std::string directory = cache_dir.empty() ? model_cache_dir() : cache_dir;
  const DownloadPlan plan = !find_registry_model(name) && is_hub_repo_id(name)
                                ? plan_repo_download(name, directory)
                                : plan_download(name, DownloadFormat::kCTranslate2, directory);
  run_download(plan, progress, IfPresent::kKeep);
  return plan.destination;
}

std::string download_vad_model(const std::string& name, const std::string& cache_dir, const DownloadProgress& progress) {
  const DownloadPlan plan = plan_vad_download(name, cache_dir.empty() ? model_cache_dir() : cache_dir);
  run_download(plan, progress, IfPresent::kKeep);
  return plan.destination;
}

}  // namespace auris
