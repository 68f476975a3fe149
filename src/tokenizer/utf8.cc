#include "tokenizer/utf8.h"

namespace auris {
namespace {

// Length of the well-formed UTF-8 sequence at bytes[pos], or 0 if it is malformed; in that case
// *valid_prefix says how many bytes form its maximal subpart (at least 1), the unit one U+FFFD
// replaces (Unicode's "best practice", which CPython follows).
size_t sequence_length(std::string_view bytes, size_t pos, size_t* valid_prefix) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
  const unsigned char lead = byte(pos);
  *valid_prefix = 1;
  if (lead < 0x80) return 1;
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 2;
    if (lead == 0xE0) lo = 0xA0;  // no overlong forms
    if (lead == 0xED) hi = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 3;
    if (lead == 0xF0) lo = 0x90;  // no overlong forms
    if (lead == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;  // continuation byte, C0/C1 or F5..FF: never valid as a lead
  }
  for (size_t k = 1; k <= need; ++k) {
    if (pos + k >= bytes.size()) return 0;
    const unsigned char c = byte(pos + k);
    const unsigned char min = (k == 1) ? lo : 0x80, max = (k == 1) ? hi : 0xBF;
    if (c < min || c > max) return 0;
    *valid_prefix = k + 1;
  }
  return need + 1;
}

}  // namespace

std::string utf8_replace_invalid(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t pos = 0; pos < bytes.size();) {
    size_t prefix = 0;
    const size_t len = sequence_length(bytes, pos, &prefix);
    if (len > 0) {
      out.append(bytes.substr(pos, len));
      pos += len;
    } else {
      out.append(kReplacementCharacter);
      pos += prefix;
    }
  }
  return out;
}

bool is_valid_utf8(std::string_view bytes) {
  for (size_t pos = 0; pos < bytes.size();) {
    size_t prefix = 0;
    const size_t len = sequence_length(bytes, pos, &prefix);
    if (len == 0) return false;
    pos += len;
  }
  return true;
}

}  // namespace auris
