// How transcribe() turns one window's decoded tokens into segments and the next seek position
// (openai/whisper transcribe.py): consecutive timestamp tokens close a segment; a window that ends
// on a single timestamp is complete; otherwise the next window starts at the last closed segment.
#pragma once

#include <vector>

namespace auris {

struct WindowSegment {
  double start = 0.0;  // seconds, absolute
  double end = 0.0;
  std::vector<int> tokens;  // including its timestamp tokens
};

struct WindowSplit {
  std::vector<WindowSegment> segments;
  int seek_advance = 0;  // mel frames to move the seek position by
  bool single_timestamp_ending = false;  // the tokens end on one timestamp: the window is complete
};

// tokens: the window's sampled tokens without <|endoftext|>. seek: window start in mel frames;
// segment_size: frames of real audio in the window. timestamp_begin: the <|0.00|> token id.
WindowSplit split_window(const std::vector<int>& tokens, int timestamp_begin, int seek, int segment_size);

}  // namespace auris
