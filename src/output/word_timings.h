// Whether a transcript carries word timings. openai marks this by a "words" key on every segment
// (present, possibly empty, when word_timestamps=True); auris::Segment always has a words vector,
// so a transcript counts as timed when any segment has a word. (A timed transcript whose every
// segment is empty reads as untimed; openai would then write no subtitles at all.)
#pragma once

#include <algorithm>

#include "auris/transcribe.h"

namespace auris::output {

inline bool has_word_timings(const Transcript& transcript) {
  return std::any_of(transcript.segments.begin(), transcript.segments.end(),
                     [](const Segment& s) { return !s.words.empty(); });
}

}  // namespace auris::output
