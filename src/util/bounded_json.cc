#include "util/bounded_json.h"

#include <string>

namespace auris {

nlohmann::json parse_bounded_json(std::string_view text, size_t max_values) {
  using json = nlohmann::json;
  size_t values = 0;
  // depth counts the containers around the value starting here: 0 for the outermost.
  const json::parser_callback_t bound = [&values, max_values](int depth, json::parse_event_t event, json&) {
    const bool container = event == json::parse_event_t::object_start || event == json::parse_event_t::array_start;
    if (container && depth >= kMaxJsonDepth)
      throw json::parse_error::create(101, 0, "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels", nullptr);
    if ((container || event == json::parse_event_t::value) && ++values > max_values)
      throw json::parse_error::create(101, 0, "more than " + std::to_string(max_values) + " values", nullptr);
    return true;
  };
  return json::parse(text, bound);
}

}  // namespace auris
