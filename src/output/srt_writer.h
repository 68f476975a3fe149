// openai/whisper's WriteSRT: numbered cues from 1 with "HH:MM:SS,mmm" times.
#pragma once

#include <string>

#include "auris/output.h"
#include "auris/transcribe.h"

namespace auris::output {

std::string format_srt(const Transcript& transcript, const SubtitleOptions& options);

}  // namespace auris::output
