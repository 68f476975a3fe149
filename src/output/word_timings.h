// Whether a transcript carries word timings. openai marks this by a "words" key on every segment
// (present, possibly empty, when word_timestamps=True); auris sets Transcript::word_timestamps, and
// a transcript built by hand also counts as timed when any segment has a word.
#pragma once

#include <algorithm>

#include "auris/transcribe.h"

namespace auris::output {

inline bool has_word_timings(const Transcript& transcript) {
  return transcript.word_timestamps ||
         std::any_of(transcript.segments.begin(), transcript.segments.end(),
                     [](const Segment& s) { return !s.words.empty(); });
}

}  // namespace auris::output
