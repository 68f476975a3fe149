// The parts of the audio transcribe() decodes, as openai/whisper transcribe.py's seek_clips: pairs
// of seek positions (mel frames) from clip_timestamps in seconds, the last end defaulting to the
// end of the audio. (parse_clip_timestamps, for openai's string form, is in auris/transcribe.h.)
#pragma once

#include <utility>
#include <vector>

namespace auris {

// [start, end) in mel frames, round(seconds * 100) as openai. Ends are clamped to content_frames:
// openai's loop never ends on a clip that reaches past the audio. Throws auris::Error for a negative
// or non-finite time or an end before its start.
std::vector<std::pair<int, int>> seek_clips(const std::vector<double>& clip_timestamps, int content_frames);

}  // namespace auris
