// tiktoken's ranks file format: one token a line, "<base64 bytes> <rank>". openai/whisper ships
// gpt2.tiktoken and multilingual.tiktoken in this form.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace auris {

// Parses the file's text into tokens by rank (result[rank] = bytes). Ranks must be exactly
// 0..n-1, each once; otherwise throws auris::Error naming the line. `source` names the file in
// messages.
std::vector<std::string> parse_tiktoken_ranks(std::string_view text, const std::string& source);

// Reads and parses a .tiktoken file; throws auris::Error if it is missing or malformed.
std::vector<std::string> read_tiktoken_file(const std::string& path);

}  // namespace auris
