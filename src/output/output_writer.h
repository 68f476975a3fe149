// The file side of openai/whisper's get_writer: the output file name rule and writing a file so
// that a failure never leaves a partial one. The public API is in include/auris/output.h.
#pragma once

#include <string>

namespace auris::output {

// os.path.splitext(os.path.basename(path))[0]: leading dots do not start an extension.
std::string audio_basename(const std::string& audio_path);

// Writes content to a temporary file beside path and renames it over path. Throws auris::Error
// (leaving nothing behind) when the directory cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace auris::output
