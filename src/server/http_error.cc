#include "server/http_error.h"

#include <nlohmann/json.hpp>

namespace auris::server {

std::string error_json(const HttpError& error) {
  auto optional = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  return nlohmann::json{{"error",
                         {{"message", error.what()},
                          {"type", error.type()},
                          {"param", optional(error.param())},
                          {"code", optional(error.code())}}}}
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace auris::server
