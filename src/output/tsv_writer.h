// openai/whisper's WriteTSV: a "start\tend\ttext" header, then per segment its start and end in
// integer milliseconds (Python's round, halves to even) and its stripped text with tabs as spaces.
#pragma once

#include <string>

#include "auris/transcribe.h"

namespace auris::output {

std::string format_tsv(const Transcript& transcript);

}  // namespace auris::output
