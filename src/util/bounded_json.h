// JSON from outside auris (a model's config or safetensors header, a client's realtime event or form
// field) parsed with its nesting bounded. nlohmann's parser and destructor are iterative, but dump(),
// copies and comparisons recurse: a value nested a hundred thousand deep (200 KB of brackets) parses,
// then overflows the stack when an error message prints it back. The values may be bounded too: each
// takes 16 bytes and more, so 16 MiB of "[0,0,..." held 270 MB.
#pragma once

#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>

namespace auris {

// Deeper than any JSON auris reads (a safetensors header is 3 levels, a realtime event 5).
inline constexpr int kMaxJsonDepth = 64;

// The value of `text`; throws nlohmann::json::parse_error where it is not JSON, is nested deeper
// than kMaxJsonDepth, or holds more than max_values values (objects, arrays and what they hold), so
// callers handle each as they handle malformed JSON.
nlohmann::json parse_bounded_json(std::string_view text, size_t max_values = std::numeric_limits<size_t>::max());

}  // namespace auris
