#include "stream/committed_tokens.h"

namespace auris {

std::vector<int> tokens_through_word(const std::vector<Segment>& segments, size_t segment, size_t word,
                                     const Tokenizer& tokenizer) {
  if (segment >= segments.size() || word >= segments[segment].words.size()) return {};
  std::vector<int> tokens;
  for (size_t s = 0; s < segment; ++s) {
    if (segments[s].seek != 0 || segments[s].tokens.empty()) return {};
    tokens.insert(tokens.end(), segments[s].tokens.begin(), segments[s].tokens.end());
  }
  const Segment& last = segments[segment];
  if (last.seek != 0) return {};
  // A segment's words are its text tokens regrouped (split at spaces, punctuation merged), so the
  // word ends where their bytes add up to the words' bytes so far.
  size_t word_bytes = 0;
  for (size_t w = 0; w <= word; ++w) word_bytes += last.words[w].word.size();
  size_t token_bytes = 0;
  for (int t : last.tokens) {
    tokens.push_back(t);
    if (t >= tokenizer.eot()) continue;  // timestamps and other special tokens hold no text
    token_bytes += tokenizer.token_bytes(t).size();
    if (token_bytes == word_bytes) return tokens;
    if (token_bytes > word_bytes) return {};
  }
  return {};
}

}  // namespace auris
