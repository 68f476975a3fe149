// Loads the reference fixtures written by tools/reference/make_normalizer_fixtures.py.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "test_support.h"

namespace auris::test {

inline nlohmann::json read_text_fixture(const std::string& name) {
  const std::string path = fixtures_dir() + "/text/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("missing fixture " + path + ": run tools/reference/make_normalizer_fixtures.py");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return nlohmann::json::parse(buffer.str());
}

}  // namespace auris::test
