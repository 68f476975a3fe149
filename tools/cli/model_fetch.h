// Official models given by name, downloaded into the model cache the first time a command needs them,
// as openai-whisper's and faster-whisper's commands do: `auris transcribe -m small file.mp3` works on
// a fresh machine. AURIS_OFFLINE=1 keeps the network out (the error then says how to get the model).
#pragma once

#include <string>

#include "model/model_download.h"

namespace auris::cli {

// The path Model::load takes for a Whisper model name or path.
std::string fetched_model(const std::string& name_or_path);
// The path of a VAD model name (silero-vad) or path.
std::string fetched_vad_model(const std::string& name_or_path);
// Runs a download, its progress on stderr when that is a terminal.
void download_with_progress(const DownloadPlan& plan, const std::string& format, IfPresent if_present);

}  // namespace auris::cli
