// openai/whisper's format_timestamp (utils.py) and the rounding its writers use: Python's round(),
// which rounds halves to even, applied to seconds * 1000.
#pragma once

#include <string>
#include <string_view>

namespace auris::output {

// Python's round(x) to an integer (half to even). Throws auris::Error for NaN, infinities and
// values too large for milliseconds of audio.
long long python_round(double x);

// "[HH:]MM:SS<marker>mmm": hours only when always_include_hours or when non-zero. Throws
// auris::Error for a negative or non-finite time (openai asserts non-negative).
std::string format_timestamp(double seconds, bool always_include_hours = false,
                             std::string_view decimal_marker = ".");

}  // namespace auris::output
