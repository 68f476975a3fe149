// openai/whisper's WriteTXT: each segment's stripped text on its own line.
#pragma once

#include <string>

#include "auris/transcribe.h"

namespace auris::output {

std::string format_txt(const Transcript& transcript);

}  // namespace auris::output
