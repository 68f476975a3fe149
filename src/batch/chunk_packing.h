// Packing: chunks much shorter than a 30-s window (short files, short speech chunks) share one
// window. They are laid one after another with a gap of silence between them, transcribed once
// with word timestamps, and each word goes back to the chunk it was spoken in (split_packed). Ten
// 2.5-s clips then cost one encoder pass instead of ten. Only chunks of one language share a window.
//
// The words would also move openai's seek loop: it decodes again from the last word's end. A window
// that starts inside the last chunk only re-reads that chunk's tail, which the first transcribed;
// it costs an encoder pass and Whisper makes up text there (base repeated earlier text of the
// window on the Hi-Fi TTS clips). So a packed window's seek loop starts none after its last chunk's
// start (AudioChunk::no_window_after_s); one that starts before it holds chunks the first left out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "auris/transcribe.h"
#include "tokenizer/tokenizer.h"

namespace auris {

// Silence between two packed chunks. Longer gaps (1.5 s, 2 s) made Whisper end a window's text
// early more often, and the seek loop's extra windows cost 1.5x-1.9x the time on the 66 files.
inline constexpr double kPackGapSeconds = 1.0;
// Chunks at least this long get a window of their own.
inline constexpr double kPackBelowSeconds = 20.0;

struct PackedItem {
  size_t source = 0;      // the caller's index of the chunk
  double start_s = 0.0;   // where it lies in the packed audio
  double end_s = 0.0;
};

struct PackedChunk {
  std::vector<PackedItem> items;  // in the order they are laid out
};

struct PackCandidate {
  size_t source = 0;
  int64_t num_samples = 0;
  std::string language;
};

// Chunks shorter than kPackBelowSeconds, greedily in order, each window filled up to 30 s with
// chunks of its first chunk's language; longer chunks are not packed (not in the result). Returns
// only windows of two or more chunks; `packed[i]` says whether candidate i went into one.
std::vector<PackedChunk> pack_chunks(const std::vector<PackCandidate>& candidates, std::vector<bool>& packed);

// The packed window's audio: each item's samples (samples_of(source)) with the gaps between them.
std::vector<float> lay_out(const PackedChunk& pack, const std::function<std::vector<float>(size_t source)>& samples_of);

// A packed window's segments (with words, times on the packed audio) split back into one list per
// item, times relative to the item's start. A segment whose words all lie in one item stays whole
// (its tokens as decoded); one that spans items is cut between words and each part's tokens are its
// text encoded again.
std::vector<std::vector<Segment>> split_packed(const std::vector<Segment>& segments, const std::vector<PackedItem>& items,
                                               const Tokenizer& tokenizer, bool keep_words);

}  // namespace auris
