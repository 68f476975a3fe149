// What transcription with VadParameters (faster-whisper's vad_filter) needs beside the speech
// itself (speech_only_audio.h): the parameters as get_speech_timestamps' options, and the times of
// the transcribed speech back on the original timeline (faster-whisper's restore_speech_timestamps).
#pragma once

#include "auris/transcribe.h"
#include "vad/speech_chunks.h"
#include "vad/speech_timestamps.h"

namespace auris {

// faster-whisper's get_speech_timestamps with these VadOptions: its cut of overlong speech (at the
// last silence) and its window count. Throws auris::Error naming a parameter out of range and the
// range allowed.
SpeechTimestampsOptions speech_timestamps_options(const VadParameters& vad);

// A segment of the speech-only audio on the original timeline: with words, each word through the
// span its middle falls in and the segment from its first word's start to its last word's end;
// without, the segment's start and end (an end exactly at a span's end stays in that span).
void restore_speech_timestamps(Segment& segment, const SpeechTimeMap& map);

}  // namespace auris
