// Attaching punctuation to words for word timestamps, as openai/whisper timing.py's
// merge_punctuations: a space-led word that is an opening mark (prepended) joins the word after it,
// and a closing mark (appended) joins the word before it, leaving an empty word behind.
#pragma once

#include <string_view>
#include <vector>

#include "transcribe/word_timing.h"

namespace auris {

// Membership is openai's `in` on strings: a substring test (so "" and runs like "'\"" match too).
void merge_punctuations(std::vector<WordTiming>& alignment, std::string_view prepended, std::string_view appended);

}  // namespace auris
