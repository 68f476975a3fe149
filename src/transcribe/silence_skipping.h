// Where the next window starts once a window has word timestamps, as openai/whisper transcribe.py
// does it: at the last word's end (not the last timestamp token), and with
// hallucination_silence_threshold, skipping silence before segments that look hallucinated
// (anomalous words: improbable, very short or very long) and dropping those segments.
#pragma once

#include <optional>
#include <vector>

#include "auris/transcribe.h"

namespace auris {

// The window just decoded, in openai's terms.
struct WindowPosition {
  int previous_seek = 0;           // the window's start, in mel frames
  int segment_size = 0;            // frames of audio in the window
  double time_offset = 0.0;        // the window's start, in seconds
  double window_end_time = 0.0;    // start + 30 s
  double segment_duration = 0.0;   // segment_size in seconds
  double content_duration = 0.0;   // the whole recording, in seconds
  int content_frames = 0;
  bool single_timestamp_ending = false;  // the window's tokens end on one timestamp
};

// What the seek loop does next.
struct SeekDecision {
  int seek = 0;
  bool drop_window = false;  // openai's `continue`: the window's segments are discarded
};

// openai utils.get_end: the last word's end, else the last segment's end; nullopt for no segments.
std::optional<double> last_end(const std::vector<Segment>& segments);

// openai's word_anomaly_score and is_segment_anomaly. A word under this probability scores 1.
constexpr double kImprobableWord = 0.15;
double word_anomaly_score(const Word& word);
bool is_segment_anomaly(const Segment* segment);

// How many of `segments` are left once a trailing run of anomalous ones is dropped: what Whisper
// makes up of the silence after the last words ("Thank you." of improbable, instant words).
size_t count_before_anomalous_tail(const std::vector<Segment>& segments);

// The same within a segment, word by word: how many of `words` are left once the longest trailing
// run that starts on an anomalous word (score of 1 or more), scores at least 1 a word on average
// and holds no two ordinary words in a row is dropped. A short buffer that ends in silence makes
// Whisper repeat its prompt at the end of the last segment, in improbable, instant words, after
// the words that were said.
size_t count_before_anomalous_words(const std::vector<Word>& words);

// seek: the position the timestamp tokens gave. May truncate `segments` (hallucinations).
SeekDecision seek_after_word_timestamps(std::vector<Segment>& segments, const WindowPosition& window, int seek,
                                        std::optional<double> hallucination_silence_threshold,
                                        double last_speech_timestamp);

}  // namespace auris
