// The page people use (GET /): src/server/page.html, compiled into the binary by CMake so the server
// needs no files beside it.
#pragma once

#include <string_view>

namespace auris::server {

std::string_view web_page();

}  // namespace auris::server
