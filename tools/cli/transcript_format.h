// Small text helpers for the command line's output.
#pragma once

#include <string>

#include "auris/transcribe.h"

namespace auris::cli {

std::string trim(const std::string& s);
// "[00:01.000 --> 00:04.500]  text", as openai/whisper prints with --verbose.
std::string format_segment_line(const Segment& segment);
// Creates dir if needed; throws auris::Error unless files can be written in it.
void require_writable_directory(const std::string& dir);
// Caps the BLAS threads (0: leave the default, all cores).
void set_cpu_threads(int threads);

}  // namespace auris::cli
