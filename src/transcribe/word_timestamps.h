// Word timestamps for one window's segments, as openai/whisper timing.py's add_word_timestamps:
// the window's text is aligned as a whole (word_timing.h), punctuation merged, the words shared out
// to the segments by their tokens, and then openai's heuristics applied: overlong words at sentence
// ends and after pauses are cut to twice the median word duration, and each segment's start and
// end move to its first and last word (or the word to the segment, when the word is far too long).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "auris/transcribe.h"
#include "transcribe/word_timing.h"

namespace auris {

class WindowEngine;

// Where the window's words come from: the engine over the current window.
struct WordAligner {
  WindowEngine& inference;
  const Tokenizer& tokenizer;
  std::string language;             // split_to_word_tokens' language ("" for English-only models)
  std::vector<int> sot_sequence;    // the transcription's start sequence
  std::vector<std::pair<int, int>> alignment_heads;
};

// segments: the window's segments (seek, start, end, tokens as decoded). num_frames: mel frames of
// real audio in the window. last_speech_timestamp: end of the last word before this window.
// Fills every segment's words and may move its start and end.
void add_word_timestamps(std::vector<Segment>& segments, const WordAligner& aligner, int num_frames,
                         std::string_view prepend_punctuations, std::string_view append_punctuations,
                         double last_speech_timestamp);

// The part after find_alignment, given its words (relative to the window's start).
void apply_word_alignment(std::vector<Segment>& segments, std::vector<WordTiming> alignment, int eot,
                          std::string_view prepend_punctuations, std::string_view append_punctuations,
                          double last_speech_timestamp);

// The text tokens (below <|endoftext|>) of a segment's tokens.
std::vector<int> text_tokens_of(const std::vector<int>& tokens, int eot);

}  // namespace auris
