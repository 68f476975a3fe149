// The tokens a re-decode of a stream's buffer forces (DecodingOptions::forced_tokens): the last
// decode's own tokens, timestamps included, from the buffer's start through the last committed word.
// The next decode of the same buffer prefills them in one pass and samples only what follows.
#pragma once

#include <cstddef>
#include <vector>

#include "auris/transcribe.h"
#include "tokenizer/tokenizer.h"

namespace auris {

// The first window's tokens (segments with seek 0) from its start through the last token of word
// `word` of segment `segment`. Empty where they cannot be recovered: the word is not in the first
// window, a segment before it lost its tokens (an instantaneous or textless one), or the words'
// text does not split the segment's tokens at the word's end.
std::vector<int> tokens_through_word(const std::vector<Segment>& segments, size_t segment, size_t word,
                                     const Tokenizer& tokenizer);

}  // namespace auris
