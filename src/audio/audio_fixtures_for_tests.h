// Test-only access to the reference fixtures of tools/reference/make_mel_fixtures.py
// (tests/fixtures/audio/index.json and its little-endian binaries).
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.h"

namespace auris::test {

inline std::string audio_fixture_path(const std::string& name) { return fixtures_dir() + "/audio/" + name; }

inline nlohmann::json audio_fixture_index() {
  std::ifstream in(audio_fixture_path("index.json"));
  if (!in) throw std::runtime_error("missing " + audio_fixture_path("index.json"));
  return nlohmann::json::parse(in);
}

// Reads a whole fixture file of little-endian T (the build machines are little-endian).
template <typename T>
std::vector<T> read_fixture_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("missing fixture " + path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

// read_fixture_file() of tests/fixtures/audio/<name>.
template <typename T>
std::vector<T> read_fixture_array(const std::string& name) {
  return read_fixture_file<T>(audio_fixture_path(name));
}

// The index entry describing the decoded samples of `file` (a path under the shared data dir).
inline nlohmann::json reference_audio(const std::string& file) {
  const nlohmann::json index = audio_fixture_index();
  for (const auto& a : index["audio"]) {
    if (a["file"] == file) return a;
  }
  throw std::runtime_error("no audio fixture for " + file);
}

}  // namespace auris::test
