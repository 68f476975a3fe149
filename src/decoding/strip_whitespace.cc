#include "decoding/strip_whitespace.h"

#include <array>

namespace auris {

namespace {

// UTF-8 encodings of the non-ASCII code points Python's str.isspace() accepts.
constexpr std::array<std::string_view, 18> kUnicodeSpaces = {
    "\xC2\x85",     "\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\x80", "\xE2\x80\x81", "\xE2\x80\x82",
    "\xE2\x80\x83", "\xE2\x80\x84", "\xE2\x80\x85", "\xE2\x80\x86", "\xE2\x80\x87", "\xE2\x80\x88",
    "\xE2\x80\x89", "\xE2\x80\x8A", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F"};
constexpr std::string_view kIdeographicSpace = "\xE3\x80\x80";

bool is_ascii_space(unsigned char c) { return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20); }

// Length of the whitespace character at the start (or end) of text, 0 if none.
size_t space_at_front(std::string_view text) {
  if (text.empty()) return 0;
  if (is_ascii_space(static_cast<unsigned char>(text.front()))) return 1;
  for (std::string_view s : kUnicodeSpaces)
    if (text.starts_with(s)) return s.size();
  return text.starts_with(kIdeographicSpace) ? kIdeographicSpace.size() : 0;
}

size_t space_at_back(std::string_view text) {
  if (text.empty()) return 0;
  if (is_ascii_space(static_cast<unsigned char>(text.back()))) return 1;
  for (std::string_view s : kUnicodeSpaces)
    if (text.ends_with(s)) return s.size();
  return text.ends_with(kIdeographicSpace) ? kIdeographicSpace.size() : 0;
}

}  // namespace

std::string strip_whitespace(std::string_view text) {
  while (size_t n = space_at_front(text)) text.remove_prefix(n);
  while (size_t n = space_at_back(text)) text.remove_suffix(n);
  return std::string(text);
}

std::string spaced_for_prompt(std::string_view text) {
  std::string spaced = " ";  // appended: GCC 12 warns falsely (-Wrestrict) on " " + a temporary
  spaced += strip_whitespace(text);
  return spaced;
}

}  // namespace auris
