// tiktoken-style byte-level BPE with Whisper's pre-tokenisation pattern. Text is split into pieces
// by the regex, and each piece's bytes are merged pairwise, always the adjacent pair whose
// concatenation has the lowest rank (leftmost on ties), until no concatenation is a token. A
// token's rank is its id.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace auris {

// Splits UTF-8 text into pieces with Whisper's (GPT-2's) pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// where \s is Unicode White_Space, as in tiktoken. The pieces cover the text exactly. Throws
// auris::Error if the text is not valid UTF-8.
std::vector<std::string_view> whisper_pretokenize(std::string_view text);

class BytePairEncoder {
 public:
  // tokens[i] = bytes of the token with rank i. Every single byte must be a token (byte-level BPE)
  // and no bytes may appear twice (empty tokens, which never match, are allowed); otherwise throws auris::Error.
  explicit BytePairEncoder(const std::vector<std::string>& tokens);

  // Token ids of ordinary text (no special tokens), as tiktoken's encode_ordinary.
  std::vector<int> encode(std::string_view text) const;
  // Token ids of one piece's bytes (any bytes; no pre-tokenisation).
  void encode_piece(std::string_view piece, std::vector<int>& out) const;
  // Rank of a byte string, if it is a token.
  std::optional<int> rank(std::string_view bytes) const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, int, Hash, std::equal_to<>> ranks_;
};

}  // namespace auris
