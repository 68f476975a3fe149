#include "output/unicode_text.h"

#include "decoding/strip_whitespace.h"

namespace auris::output {

namespace {

// Exactly the code points for which Python's str.isspace() is true.
bool is_python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

}  // namespace

char32_t decode_code_point(std::string_view utf8, size_t pos, size_t* length) {
  const auto byte = [&](size_t i) -> char32_t {
    return pos + i < utf8.size() ? static_cast<unsigned char>(utf8[pos + i]) & 0x3F : 0;
  };
  const unsigned char lead = static_cast<unsigned char>(utf8[pos]);
  if (lead < 0x80) {
    *length = 1;
    return lead;
  }
  if (lead < 0xE0) {
    *length = 2;
    return ((lead & 0x1F) << 6) | byte(1);
  }
  if (lead < 0xF0) {
    *length = 3;
    return ((lead & 0x0F) << 12) | (byte(1) << 6) | byte(2);
  }
  *length = 4;
  return ((lead & 0x07) << 18) | (byte(1) << 12) | (byte(2) << 6) | byte(3);
}

size_t python_length(std::string_view utf8) {
  size_t count = 0;
  for (char c : utf8)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;  // every byte but continuations
  return count;
}

size_t leading_space_bytes(std::string_view utf8) {
  size_t pos = 0;
  while (pos < utf8.size()) {
    size_t length = 0;
    if (!is_python_space(decode_code_point(utf8, pos, &length))) break;
    pos += length;
  }
  return pos < utf8.size() ? pos : utf8.size();
}

std::string python_strip(std::string_view utf8) { return strip_whitespace(utf8); }

}  // namespace auris::output
