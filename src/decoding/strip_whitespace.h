// Python's str.strip() on UTF-8 text: removes leading and trailing characters for which
// str.isspace() is true (ASCII whitespace, \x1c-\x1f, and the Unicode spaces and separators).
// openai strips prompts before encoding them and the decoded text of every result.
#pragma once

#include <string>
#include <string_view>

namespace auris {

std::string strip_whitespace(std::string_view text);

// " " + strip_whitespace(text): the text openai encodes for a prompt, a prefix or hotwords, whose
// first word follows others and so takes its leading space.
std::string spaced_for_prompt(std::string_view text);

}  // namespace auris
