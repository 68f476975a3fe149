// Fetching official models from the Hugging Face Hub into the model cache (`auris download`): the
// only code in auris that touches the network. Files land in DEST.partial and are renamed into place
// when complete and checked, so an interrupted or corrupted download never looks like a model.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace auris {

enum class DownloadFormat { kCTranslate2, kHuggingFace, kGgml };

struct DownloadPlan {
  std::string name;                // registry name, e.g. "tiny.en", or the repository's id
  std::string repo;                // the hub repository every file comes from
  std::string destination;         // directory (ctranslate2, huggingface) or file (ggml)
  std::vector<std::string> urls;   // one per file
  std::vector<std::string> files;  // destination-relative file names, parallel to urls; empty: the
                                   // Whisper model the repository's listing holds (whisper_model_files)
};

// The hub endpoint: $AURIS_HUB_ENDPOINT (e.g. a mirror or file:///dir for tests), else https://huggingface.co.
std::string hub_endpoint();
// What `auris download name --format f` would fetch and where. Throws auris::Error for unknown names
// or a format the model is not published in.
DownloadPlan plan_download(const std::string& name, DownloadFormat format, const std::string& cache_dir);
// What `auris download silero-vad` fetches: whisper.cpp's ggml VAD file into cache_dir. Throws
// auris::Error for a name that is not a VAD model.
DownloadPlan plan_vad_download(const std::string& name, const std::string& cache_dir);
// A hub repository id ("owner/name", as faster-whisper's WhisperModel takes): a fine-tuned or
// converted Whisper model in CTranslate2 or Hugging Face format.
bool is_hub_repo_id(const std::string& text);
// Where a repository's model goes in the cache: cache_dir/owner--name.
std::string hub_repo_cache_path(const std::string& repo, const std::string& cache_dir);
// What downloading a repository fetches: its Whisper model's files, chosen from its listing.
DownloadPlan plan_repo_download(const std::string& repo, const std::string& cache_dir);
// The VAD model file for a path (returned as is when it exists) or a VAD model name (looked up in
// cache_dir, where `auris download` puts it). Throws auris::Error saying how to get it otherwise.
std::string resolve_vad_model_path(const std::string& path_or_name, const std::string& cache_dir);
// Fetches every file of the plan, each checked against the hub's listing of the repository (its size,
// and its SHA-256 or Git blob id: hub_listing.h); progress(file, bytes_done, bytes_total) is called as
// data arrives. Throws auris::Error (HTTP status or transfer error, with the URL; a file that is not
// what the hub lists) and leaves no partial model behind.
// Processes (and threads) downloading to one destination take turns, by an flock on DEST.lock; with
// kKeep, a model already there when its turn comes (another process just fetched it) is kept as it is.
enum class IfPresent { kReplace, kKeep };
void run_download(const DownloadPlan& plan,
                  const std::function<void(const std::string&, long long, long long)>& progress = nullptr,
                  IfPresent if_present = IfPresent::kReplace);

}  // namespace auris
