// The bodies of OpenAI's speech-to-text answers: each response_format of a finished transcript, and
// the Server-Sent Events of a streamed one.
#pragma once

#include <string>

#include "auris/transcribe.h"
#include "server/transcription_form.h"

namespace auris::server {

struct Body {
  std::string content;
  std::string content_type;
};

// json: {"text"}; text, srt, vtt: the files `auris transcribe -f txt|srt|vtt` writes; verbose_json:
// OpenAI's verbose shape (task, language by name, duration, text, segments, words) plus
// language_probability and duration_after_vad.
Body transcription_body(const Transcript& transcript, ResponseFormat format, const std::string& task);

// One SSE event ("data: {...}\n\n"): a segment's transcript.text.delta (with the segment's id, times
// and text), the final transcript.text.done, or an error after the stream started.
std::string delta_event(const Segment& segment);
std::string done_event(const Transcript& transcript);
std::string error_event(const std::string& error_json);

}  // namespace auris::server
