// The subtitle iterator of openai/whisper's SubtitlesWriter (utils.py iterate_result): groups word
// timings into lines and subtitles under max_line_width / max_line_count / max_words_per_line,
// optionally one cue per word with that word underlined; one cue per segment without word timings.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "auris/output.h"
#include "auris/transcribe.h"

namespace auris::output {

// One subtitle: formatted start and end times and its text (lines joined by "\n").
struct SubtitleCue {
  std::string start;
  std::string end;
  std::string text;
};

// highlight_words' re.sub(r"^(\s*)(.*)$", r"\1<u>\2</u>", word): underlines the word after its
// leading whitespace. "." stops at "\n" and "$" also matches before a final "\n", so a word with
// an inner newline stays as it is, as in Python.
std::string underline_word(const std::string& word);

// Throws auris::Error for negative limits (openai would misbehave or loop forever on them).
void validate_subtitle_options(const SubtitleOptions& options);

// Times are formatted with format_timestamp(t, always_include_hours, decimal_marker), as the
// writer's format_timestamp does (vtt: false, "."; srt: true, ",").
std::vector<SubtitleCue> subtitle_cues(const Transcript& transcript, const SubtitleOptions& options,
                                       bool always_include_hours, std::string_view decimal_marker);

}  // namespace auris::output
