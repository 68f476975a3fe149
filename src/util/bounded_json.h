// JSON from outside auris (a model's config or safetensors header, a client's realtime event or form
// field) parsed with its nesting bounded. nlohmann's parser and destructor are iterative, but dump(),
// copies and comparisons recurse: a value nested a hundred thousand deep (200 KB of brackets) parses,
// then overflows the stack when an error message prints it back.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace auris {

// Deeper than any JSON auris reads (a safetensors header is 3 levels, a realtime event 5).
inline constexpr int kMaxJsonDepth = 64;

// The value of `text`; throws nlohmann::json::parse_error where it is not JSON or is nested deeper
// than kMaxJsonDepth, so callers handle both as they handle malformed JSON.
nlohmann::json parse_bounded_json(std::string_view text);

}  // namespace auris
