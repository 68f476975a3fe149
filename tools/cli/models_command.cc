// `auris models`: what is in the cache and what `auris download` can fetch.
// `auris download NAME [--format ct2|hf|ggml]`: fetches an official model into the cache; silero-vad
// (the VAD model, ggml only) too.
#include <cstdio>
#include <filesystem>
#include <string>

#include "auris/error.h"
#include "auris/model.h"
#include "commands.h"
#include "model_fetch.h"
#include "model/model_download.h"
#include "model/model_registry.h"

namespace fs = std::filesystem;

namespace auris::cli {

Command add_models_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("models", "List cached models and the models that can be downloaded");
  return {cmd, []() {
    const std::string cache = model_cache_dir();
    std::printf("Cached in %s:\n", cache.c_str());
    int cached = 0;
    std::error_code ec;
    if (fs::is_directory(cache, ec)) {
      for (const auto& entry : fs::directory_iterator(cache, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.ends_with(".partial")) continue;
        const bool is_model = entry.is_directory() ? (fs::exists(entry.path() / "model.bin") ||
                                                      fs::exists(entry.path() / "config.json"))
                                                   : name.ends_with(".bin");
        if (!is_model) continue;
        std::printf("  %s\n", name.c_str());
        ++cached;
      }
    }
    if (cached == 0) std::printf("  (none)\n");
    std::printf("Available with `auris download NAME` (formats: ct2, hf, ggml):\n");
    for (const RegistryModel& m : registry_models())
      std::printf("  %-18s %s%s%s\n", m.name.c_str(), m.ct2_repo.empty() ? "" : "ct2 ", m.hf_repo.empty() ? "" : "hf ",
                  m.ggml_file.empty() ? "" : "ggml");
    std::printf("  %-18s ggml (voice activity detection: Silero VAD v6.2.0)\n", "silero-vad");
    return 0;
  }};
}

Command add_download_command(CLI::App& app) {
  struct Args {
    std::string name;
    std::string format = "ct2";
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("download", "Download an official Whisper model, a hub repository's (owner/name), or silero-vad into the cache");
  cmd->add_option("name", a->name, "Model name (see `auris models`)")->required();
  cmd->add_option("--format", a->format, "ct2 (faster-whisper), hf (Transformers) or ggml (whisper.cpp)")
      ->check(CLI::IsMember({"ct2", "hf", "ggml"}))
      ->capture_default_str();
  return {cmd, [a, cmd]() {
    const DownloadFormat format = a->format == "hf"     ? DownloadFormat::kHuggingFace
                                  : a->format == "ggml" ? DownloadFormat::kGgml
                                                        : DownloadFormat::kCTranslate2;
    // The VAD model exists in whisper.cpp's ggml format only, whatever the default format.
    const bool vad = find_vad_model(a->name).has_value();
    if (vad && cmd->count("--format") && format != DownloadFormat::kGgml)
      throw Error(a->name + " is published in the ggml format only: drop --format or pass --format ggml");
    // A hub repository (owner/name): its Whisper model, in the format it holds.
    const bool repo = !vad && !find_registry_model(a->name) && is_hub_repo_id(a->name);
    if (repo && cmd->count("--format"))
      throw Error(a->name + " is a hub repository: its model is fetched in the format it holds, so drop --format");
    const DownloadPlan plan = vad    ? plan_vad_download(a->name, model_cache_dir())
                              : repo ? plan_repo_download(a->name, model_cache_dir())
                                     : plan_download(a->name, format, model_cache_dir());
    download_with_progress(plan, vad ? "ggml" : repo ? "its Whisper model" : a->format, IfPresent::kReplace);
    std::printf("%s\n", plan.destination.c_str());
    return 0;
  }};
}

}  // namespace auris::cli
