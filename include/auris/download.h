// Fetching official Whisper models from the Hugging Face Hub into the model cache, as `auris
// download` does: the only part of auris that touches the network.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace auris {

// The official models download_model fetches, in size order ("tiny.en", "tiny", ... "large-v3-turbo").
std::vector<std::string> available_models();

// Called as data arrives: the file, bytes received, and its size (0 while unknown).
using DownloadProgress = std::function<void(const std::string& file, long long done, long long total)>;

// Downloads an official model (CTranslate2 format, faster-whisper's checkpoints) into
// cache_dir/NAME, or the Whisper model of a hub repository named "owner/name" (a fine-tuned or
// converted model in CTranslate2 or Hugging Face format, as faster-whisper's WhisperModel takes)
// into cache_dir/owner--name, and returns that directory, which Model::load accepts. A model already there
// is returned as it is, without the network. cache_dir "" is model_cache_dir(). Files land under a
// ".partial" name and are renamed once complete, so an interrupted download never looks like a
// model. Every file is checked against the hub's listing of it (size, and SHA-256 or Git blob id).
// Throws auris::Error for an unknown name (listing the known ones), a failed transfer (the URL and
// HTTP status) or a file that is not what the hub lists. progress may be empty.
std::string download_model(const std::string& name, const std::string& cache_dir = "",
                           const DownloadProgress& progress = nullptr);

// Downloads a VAD model ("silero-vad": whisper.cpp's ggml file of Silero VAD v6.2.0) into cache_dir
// and returns the file's path, which VadParameters::model accepts; one already there is returned
// without the network. Throws auris::Error for an unknown name or a failed transfer.
std::string download_vad_model(const std::string& name = "silero-vad", const std::string& cache_dir = "",
                               const DownloadProgress& progress = nullptr);

}  // namespace auris
