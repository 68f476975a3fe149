// Text from the caller as an error message quotes it: a path or an option of megabytes would fill the
// message, so a long one is cut (at a character boundary) and its length given.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace auris {

inline std::string shown(std::string_view text) {
  constexpr size_t kMost = 200;
  if (text.size() <= kMost) return std::string(text);
  size_t cut = kMost;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return std::string(text.substr(0, cut)) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace auris
