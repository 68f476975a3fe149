// UTF-8 decoding the way Python's bytes.decode("utf-8", errors="replace") does it, which is what
// tiktoken's decode (and so openai/whisper's) applies to the joined bytes of a token sequence.
// Tokens are byte sequences and often split a character, so decoded text must handle that exactly.
#pragma once

#include <string>
#include <string_view>

namespace auris {

// The UTF-8 replacement character U+FFFD, as UTF-8 bytes.
inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

// Copies valid UTF-8 through and replaces each maximal invalid subpart (a truncated or malformed
// sequence, a stray continuation byte, an overlong form, a surrogate) with one U+FFFD.
std::string utf8_replace_invalid(std::string_view bytes);

// True if the bytes are well-formed UTF-8 (no surrogates, overlongs or truncation).
bool is_valid_utf8(std::string_view bytes);

}  // namespace auris
