#include "tokenizer/byte_unicode.h"

#include <array>

#include "auris/error.h"

namespace auris {
namespace {

// GPT-2 maps the printable latin-1 bytes to themselves and the other 68 bytes, in order, to
// U+0100 upwards, so that every byte has a visible, non-space code point.
struct ByteTable {
  std::array<char32_t, 256> byte_to_cp{};
  std::array<int, 512> cp_to_byte{};
  ByteTable() {
    cp_to_byte.fill(-1);
    int next = 256;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      char32_t cp = printable ? static_cast<char32_t>(b) : static_cast<char32_t>(next++);
      byte_to_cp[b] = cp;
      cp_to_byte[cp] = b;
    }
  }
};

const ByteTable& table() {
  static const ByteTable t;
  return t;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else {  // the mapping never goes past U+01FF: two bytes suffice
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

std::string gpt2_unicode_to_bytes(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (size_t i = 0; i < token.size();) {
    unsigned char c = static_cast<unsigned char>(token[i]);
    char32_t cp;
    if (c < 0x80) {
      cp = c;
      i += 1;
    } else if ((c & 0xE0) == 0xC0 && i + 1 < token.size()) {
      cp = ((c & 0x1F) << 6) | (static_cast<unsigned char>(token[i + 1]) & 0x3F);
      i += 2;
    } else {
      throw Error("vocabulary token is not in GPT-2 byte-level form: '" + std::string(token) + "'");
    }
    int b = cp < 512 ? table().cp_to_byte[cp] : -1;
    if (b < 0) throw Error("vocabulary token is not in GPT-2 byte-level form: '" + std::string(token) + "'");
    out += static_cast<char>(b);
  }
  return out;
}

std::string bytes_to_gpt2_unicode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) append_utf8(out, table().byte_to_cp[b]);
  return out;
}

}  // namespace auris
