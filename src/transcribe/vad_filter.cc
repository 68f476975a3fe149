#include "transcribe/vad_filter.h"

#include <cstdio>
#include <string>

#include "auris/error.h"

namespace auris {

SpeechTimestampsOptions speech_timestamps_options(const VadParameters& vad) {
  SpeechTimestampsOptions o = SpeechTimestampsOptions::faster_whisper();
  o.threshold = vad.threshold;
  o.neg_threshold = vad.neg_threshold;
  o.min_speech_duration_ms = vad.min_speech_duration_ms;
  o.max_speech_duration_s = vad.max_speech_duration_s;
  o.min_silence_duration_ms = vad.min_silence_duration_ms;
  o.speech_pad_ms = vad.speech_pad_ms;
  validate(o);
  // silero-vad allows it, but speech would then end on windows it would still start on.
  if (vad.neg_threshold && *vad.neg_threshold > vad.threshold) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "VAD option neg_threshold = %g is out of range: allowed 0 to threshold (%g)",
                  *vad.neg_threshold, vad.threshold);
    throw Error(buf);
  }
  return o;
}

void restore_speech_timestamps(Segment& segment, const SpeechTimeMap& map) {
  if (segment.words.empty()) {
    segment.start = map.original_time(segment.start);
    segment.end = map.original_time(segment.end, std::nullopt, /*is_end=*/true);
    return;
  }
  for (Word& w : segment.words) {
    // Both ends of a word through one span, so that a word never straddles removed silence.
    const size_t span = map.chunk_index((w.start + w.end) / 2);
    w.start = map.original_time(w.start, span);
    w.end = map.original_time(w.end, span);
  }
  segment.start = segment.words.front().start;
  segment.end = segment.words.back().end;
}

}  // namespace auris
