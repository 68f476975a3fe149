// Python str semantics over UTF-8 text, for porting openai/whisper's text normalisers exactly:
// str.lower(), str.split(), str.isspace(), unicodedata.normalize/category and the \X grapheme
// clusters of the `regex` module. Unicode tables come from ICU.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace auris {

// Throws auris::Error naming `what` if `text` is not well-formed UTF-8.
void require_valid_utf8(std::string_view text, std::string_view what);

// Decodes well-formed UTF-8 (check with require_valid_utf8 first) into code points.
std::u32string utf8_to_code_points(std::string_view text);
void append_utf8(std::string& out, char32_t code_point);
std::string code_points_to_utf8(std::u32string_view code_points);

// The first code point of non-empty well-formed UTF-8 and its length in bytes.
char32_t first_code_point(std::string_view text, std::size_t* length);

// str.isspace(): the characters Python's `\s` and str.split() treat as whitespace.
bool is_python_space(char32_t c);
// str.split() with no arguments: runs of whitespace separate, leading/trailing runs are dropped.
std::vector<std::string> split_python_whitespace(std::string_view text);
// str.strip() with no arguments.
std::string_view strip_python_whitespace(std::string_view text);

// str.lower(): full Unicode lower-casing (so "İ" becomes two code points, final sigma is "ς").
std::string python_lower(std::string_view text);

// unicodedata.normalize("NFKD" / "NFKC", text).
std::string normalize_nfkd(std::string_view text);
std::string normalize_nfkc(std::string_view text);

// unicodedata.category(c): two letters such as "Lu", "Mn", "Po".
std::string_view unicode_category(char32_t c);

// Python's `\d`: category Nd. decimal_digit_value is its value 0..9 (-1 for non-digits).
bool is_decimal_digit(char32_t c);
int decimal_digit_value(char32_t c);

// regex.findall(r"\X", text): extended grapheme clusters.
std::vector<std::string> grapheme_clusters(std::string_view text);

}  // namespace auris
