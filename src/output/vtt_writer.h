// openai/whisper's WriteVTT: a "WEBVTT" header, then one cue per subtitle with "MM:SS.mmm" times
// (hours only when non-zero).
#pragma once

#include <string>

#include "auris/output.h"
#include "auris/transcribe.h"

namespace auris::output {

std::string format_vtt(const Transcript& transcript, const SubtitleOptions& options);

}  // namespace auris::output
