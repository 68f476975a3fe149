#include "util/bounded_json.h"

#include <string>

namespace auris {

nlohmann::json parse_bounded_json(std::string_view text) {
  using json = nlohmann::json;
  // depth counts the containers around the value starting here: 0 for the outermost.
  const json::parser_callback_t bound = [](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) && depth >= kMaxJsonDepth)
      throw json::parse_error::create(101, 0, "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels", nullptr);
    return true;
  };
  return json::parse(text, bound);
}

}  // namespace auris
