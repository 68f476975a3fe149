// The few Python str operations the writers rely on, on UTF-8 text: len() counts code points, and
// str.strip() / the regex \s treat the same set of characters as whitespace (str.isspace()).
// Inputs are assumed to be valid UTF-8 (output_writer replaces invalid bytes first).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace auris::output {

// Python's len(): the number of code points.
size_t python_length(std::string_view utf8);

// Byte length of the whitespace characters (str.isspace()) at the start of text.
size_t leading_space_bytes(std::string_view utf8);

// Python's str.strip() with no arguments.
std::string python_strip(std::string_view utf8);

// Decodes the code point starting at utf8[pos] and stores its byte length in *length.
char32_t decode_code_point(std::string_view utf8, size_t pos, size_t* length);

}  // namespace auris::output
