// openai/whisper's WriteJSON: json.dump(result) of {"text", "segments", "language"}, each segment
// {"id", "seek", "start", "end", "text", "tokens", "temperature", "avg_logprob",
// "compression_ratio", "no_speech_prob"[, "words": [{"word", "start", "end", "probability"}]]},
// with json.dump's defaults: ", " and ": " separators, floats as Python's repr, and
// ensure_ascii=True, so non-ASCII text is written as \uXXXX escapes (surrogate pairs above U+FFFF).
// "words" appears on every segment when the transcript has word timings (see word_timings.h).
#pragma once

#include <string>
#include <string_view>

#include "auris/transcribe.h"

namespace auris::output {

// A JSON string literal as Python's json.dumps writes it with ensure_ascii=True.
std::string json_string(std::string_view utf8);

std::string format_json(const Transcript& transcript);

}  // namespace auris::output
