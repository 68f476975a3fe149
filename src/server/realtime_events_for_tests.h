// Test-only: client events of a realtime session (realtime_session.h) carrying audio.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace auris::test {

inline std::string base64(const std::vector<unsigned char>& bytes) {
  static const char* const kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const uint32_t n = (bytes[i] << 16) | (i + 1 < bytes.size() ? bytes[i + 1] << 8 : 0) | (i + 2 < bytes.size() ? bytes[i + 2] : 0);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

// input_audio_buffer.append events of `chunk` samples each: the samples as 16-bit PCM, base64.
inline std::vector<std::string> append_events(const std::vector<float>& samples, size_t chunk) {
  std::vector<std::string> events;
  for (size_t at = 0; at < samples.size(); at += chunk) {
    std::vector<unsigned char> bytes;
    for (size_t i = at; i < std::min(samples.size(), at + chunk); ++i) {
      const auto v = static_cast<int16_t>(std::lround(std::clamp(samples[i], -1.0f, 1.0f) * 32767));
      bytes.push_back(static_cast<unsigned char>(v & 0xff));
      bytes.push_back(static_cast<unsigned char>((v >> 8) & 0xff));
    }
    events.push_back(nlohmann::json{{"type", "input_audio_buffer.append"}, {"audio", base64(bytes)}}.dump());
  }
  return events;
}

}  // namespace auris::test
