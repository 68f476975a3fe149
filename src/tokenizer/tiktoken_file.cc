#include "tokenizer/tiktoken_file.h"

#include <charconv>
#include <optional>

#include "auris/error.h"
#include "util/mapped_file.h"

namespace auris {
namespace {

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Standard base64; '=' padding is optional, as Python's b64decode reads it ("=" alone is the empty
// token that multilingual.tiktoken has at rank 50256). nullopt if malformed.
std::optional<std::string> base64_decode(std::string_view in) {
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  if (in.size() % 4 == 1) return std::nullopt;  // no byte ends there
  std::string out;
  out.reserve(in.size() / 4 * 3 + 2);
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : in) {
    const int v = base64_value(c);
    if (v < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> parse_tiktoken_ranks(std::string_view text, const std::string& source) {
  std::vector<std::string> tokens;
  std::vector<bool> seen;
  size_t line_number = 0;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const auto fail = [&](const std::string& what) {
      return Error(source + " line " + std::to_string(line_number) + ": " + what +
                   "; expected '<base64 token> <rank>' (a tiktoken ranks file such as "
                   "multilingual.tiktoken)");
    };
    const size_t space = line.find(' ');
    if (space == std::string_view::npos) throw fail("no space between token and rank");
    const std::optional<std::string> bytes = base64_decode(line.substr(0, space));
    if (!bytes) throw fail("the token is not valid base64");
    const std::string_view rank_text = line.substr(space + 1);
    long rank = -1;
    const auto [end, ec] = std::from_chars(rank_text.data(), rank_text.data() + rank_text.size(), rank);
    if (ec != std::errc() || end != rank_text.data() + rank_text.size() || rank < 0 || rank > 10'000'000) {
      throw fail("the rank is not a number between 0 and 10000000");
    }
    const auto r = static_cast<size_t>(rank);
    if (r >= tokens.size()) {
      tokens.resize(r + 1);
      seen.resize(r + 1, false);
    }
    if (seen[r]) throw fail("rank " + std::to_string(r) + " appears twice");
    seen[r] = true;
    tokens[r] = *bytes;
  }
  if (tokens.empty()) throw Error(source + " holds no tokens; expected a tiktoken ranks file");
  for (size_t r = 0; r < seen.size(); ++r) {
    if (!seen[r]) {
      throw Error(source + " has no token of rank " + std::to_string(r) +
                  "; ranks must run 0..n-1 without gaps (is the file truncated?)");
    }
  }
  return tokens;
}

std::vector<std::string> read_tiktoken_file(const std::string& path) {
  return parse_tiktoken_ranks(read_text_file(path), path);
}

}  // namespace auris
