// Reader for the golden fixtures that tools/reference/golden.py writes from the real openai/whisper
// package (tests/fixtures/golden/<model>/: meta.json, tokens.json, *.bin). Parity tests use it to
// get the reference tokens, options and float arrays for a model. Header-only because the test
// binary is built from tests/*_test.cc and tests/test_support.cc alone.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "auris/error.h"
#include "test_support.h"

namespace auris::test {

// The DecodingOptions an entry was produced with (openai/whisper field names and defaults).
struct GoldenOptions {
  std::string task = "transcribe";
  std::optional<std::string> language;  // nullopt: detected by the reference
  double temperature = 0.0;
  std::optional<int> beam_size;
  std::optional<double> patience;
  std::optional<std::string> prompt;
  std::optional<std::string> prefix;
  bool without_timestamps = false;
  double max_initial_timestamp = 1.0;
  bool suppress_blank = true;
  std::string suppress_tokens = "-1";
};

// One whisper.decoding.decode() call on a clip's decode window.
struct GoldenDecode {
  std::string id;    // "<clip key>/<kind>", e.g. "jfk/beam5_ts"
  std::string clip;  // path relative to the shared data directory
  std::string group;  // jfk | hifitts | multilingual | empty
  int content_frames = 0;
  GoldenOptions options;
  bool language_detected = false;
  std::vector<int> initial_tokens;  // SOT sequence (+ prompt/prefix) the decoder started from
  std::vector<int> tokens;          // sampled tokens, without initial tokens and EOT
  std::string text;
  double avg_logprob = 0, no_speech_prob = 0, compression_ratio = 0, temperature = 0;
  std::string language;
  std::vector<std::pair<std::string, double>> language_top5;  // only when detected
  std::optional<std::string> reference_text;                   // human transcript, for information
};

// whisper.decoding.detect_language() on a clip's detect window.
struct GoldenDetection {
  std::string id, clip, expected_language, language;
  std::vector<std::pair<std::string, double>> top5;
};

// A float32 array from a .bin file, row-major with the shape meta.json records.
struct GoldenArray {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

namespace golden_detail {

inline nlohmann::json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open golden fixture " + path.string() +
                       ": regenerate it with tools/reference/golden.py (see tools/reference/README.md)");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error("golden fixture " + path.string() + " is not valid JSON (" + e.what() +
                "): regenerate it with tools/reference/golden.py");
  }
}

template <typename T>
std::optional<T> optional_field(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<T>();
}

inline std::vector<std::pair<std::string, double>> language_list(const nlohmann::json& j) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& item : j) out.emplace_back(item.at(0).get<std::string>(), item.at(1).get<double>());
  return out;
}

inline GoldenOptions parse_options(const nlohmann::json& j) {
  GoldenOptions o;
  o.task = j.at("task").get<std::string>();
  o.language = optional_field<std::string>(j, "language");
  o.temperature = j.at("temperature").get<double>();
  o.beam_size = optional_field<int>(j, "beam_size");
  o.patience = optional_field<double>(j, "patience");
  o.prompt = optional_field<std::string>(j, "prompt");
  o.prefix = optional_field<std::string>(j, "prefix");
  o.without_timestamps = j.at("without_timestamps").get<bool>();
  o.max_initial_timestamp = j.at("max_initial_timestamp").get<double>();
  o.suppress_blank = j.at("suppress_blank").get<bool>();
  o.suppress_tokens = j.at("suppress_tokens").get<std::string>();
  return o;
}

inline GoldenDecode parse_decode(const nlohmann::json& j) {
  GoldenDecode d;
  d.id = j.at("id").get<std::string>();
  d.clip = j.at("clip").get<std::string>();
  d.group = j.at("group").get<std::string>();
  d.content_frames = j.at("content_frames").get<int>();
  d.options = parse_options(j.at("options"));
  d.language_detected = j.at("language_source").get<std::string>() == "detected";
  d.initial_tokens = j.at("initial_tokens").get<std::vector<int>>();
  d.tokens = j.at("tokens").get<std::vector<int>>();
  d.text = j.at("text").get<std::string>();
  d.avg_logprob = j.at("avg_logprob").get<double>();
  d.no_speech_prob = j.at("no_speech_prob").get<double>();
  d.compression_ratio = j.at("compression_ratio").get<double>();
  d.temperature = j.at("temperature").get<double>();
  d.language = j.at("language").get<std::string>();
  if (j.contains("language_top5")) d.language_top5 = language_list(j.at("language_top5"));
  d.reference_text = optional_field<std::string>(j, "reference_text");
  return d;
}

}  // namespace golden_detail

// All golden fixtures of one model ("tiny.en", "base").
class GoldenFixtures {
 public:
  explicit GoldenFixtures(const std::string& model)
      : dir_(std::filesystem::path(fixtures_dir()) / "golden" / model) {
    meta_ = golden_detail::read_json(dir_ / "meta.json");
    const auto tokens_path = dir_ / "tokens.json";
    const nlohmann::json tokens = golden_detail::read_json(tokens_path);
    try {
      for (const auto& e : tokens.at("entries")) decodes_.push_back(golden_detail::parse_decode(e));
      for (const auto& e : tokens.at("language_detection")) {
        detections_.push_back({e.at("id").get<std::string>(), e.at("clip").get<std::string>(),
                               e.at("expected_language").get<std::string>(),
                               e.at("language").get<std::string>(),
                               golden_detail::language_list(e.at("top5"))});
      }
    } catch (const nlohmann::json::exception& e) {
      throw Error("golden fixture " + tokens_path.string() + " has an unexpected layout (" + e.what() +
                  "): regenerate it with tools/reference/golden.py");
    }
  }

  const std::filesystem::path& dir() const { return dir_; }
  // meta.json: dims, special_tokens, sot sequences, window recipes, jfk row/frame indices, arrays.
  const nlohmann::json& meta() const { return meta_; }
  int n_vocab() const { return meta_.at("dims").at("n_vocab").get<int>(); }
  const std::vector<GoldenDecode>& decodes() const { return decodes_; }
  const std::vector<GoldenDetection>& detections() const { return detections_; }

  const GoldenDecode& decode(const std::string& id) const {
    for (const auto& d : decodes_)
      if (d.id == id) return d;
    throw Error("no golden decode entry '" + id + "' in " + (dir_ / "tokens.json").string());
  }

  // Loads a .bin array listed under meta.json "arrays" and checks its size against the shape.
  GoldenArray array(const std::string& name) const {
    const auto& arrays = meta_.at("arrays");
    if (!arrays.contains(name)) throw Error("golden array '" + name + "' is not listed in " +
                                            (dir_ / "meta.json").string());
    GoldenArray a;
    a.shape = arrays.at(name).at("shape").get<std::vector<int64_t>>();
    int64_t count = 1;
    for (int64_t d : a.shape) count *= d;
    const auto path = dir_ / name;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open golden array " + path.string() + ": regenerate it with tools/reference/golden.py");
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (static_cast<int64_t>(bytes.size()) != count * 4)
      throw Error("golden array " + path.string() + " has " + std::to_string(bytes.size()) +
                  " bytes, expected " + std::to_string(count * 4) + " for its shape: regenerate it");
    a.data.resize(count);
    std::memcpy(a.data.data(), bytes.data(), bytes.size());  // little-endian float32, as written
    return a;
  }

 private:
  std::filesystem::path dir_;
  nlohmann::json meta_;
  std::vector<GoldenDecode> decodes_;
  std::vector<GoldenDetection> detections_;
};

}  // namespace auris::test
