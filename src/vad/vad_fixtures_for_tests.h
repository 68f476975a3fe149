// Test-only access to the Silero VAD fixtures of tools/reference/make_vad_fixtures.py
// (tests/fixtures/vad/: index.json and the window probabilities as float32), and to the real ggml VAD
// file and the clips under ../shared/data.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "auris/audio.h"
#include "audio/audio_fixtures_for_tests.h"
#include "test_support.h"
#include "vad/speech_timestamps.h"

namespace auris::test {

struct VadFixtureClip {
  std::string key;                  // "jfk", "multilingual/test_de", "longform", "silence_10s"
  std::optional<std::string> file;  // under the shared data dir; none: digital silence
  int64_t num_samples = 0;
  double sum = 0;                   // of the samples, to prove the audio the same
  std::vector<float> probabilities;               // the package's model
  std::vector<float> probabilities_ggml_weights;  // the same with the ggml file's fp16 weights
  std::map<std::string, std::vector<SpeechSpan>> timestamps;  // per option set
};

struct VadFixtures {
  std::map<std::string, SpeechTimestampsOptions> option_sets;  // as the script passed them
  std::vector<VadFixtureClip> clips;
};

// get_speech_timestamps keyword arguments as options; throws for one this reader does not know, so
// that a new one in the script cannot be silently ignored here.
inline SpeechTimestampsOptions options_from_kwargs(const nlohmann::json& kwargs) {
  SpeechTimestampsOptions o;
  for (const auto& [key, value] : kwargs.items()) {
    if (key == "threshold") o.threshold = value.get<double>();
    else if (key == "min_speech_duration_ms") o.min_speech_duration_ms = value.get<int>();
    else if (key == "min_silence_duration_ms") o.min_silence_duration_ms = value.get<int>();
    else if (key == "speech_pad_ms") o.speech_pad_ms = value.get<int>();
    else if (key == "max_speech_duration_s") o.max_speech_duration_s = value.get<double>();
    else if (key == "use_max_poss_sil_at_max_speech") o.cut_at_longest_silence = value.get<bool>();
    else throw std::runtime_error("VAD fixture option " + key + " is not mapped to SpeechTimestampsOptions");
  }
  return o;
}

inline VadFixtures vad_fixtures() {
  const std::string dir = fixtures_dir() + "/vad/";
  std::ifstream in(dir + "index.json");
  if (!in) throw std::runtime_error("missing " + dir + "index.json: run tools/reference/make_vad_fixtures.py");
  const nlohmann::json index = nlohmann::json::parse(in);
  const std::vector<float> stock = read_fixture_file<float>(dir + "probabilities.f32");
  const std::vector<float> rounded = read_fixture_file<float>(dir + "probabilities_ggml_weights.f32");
  VadFixtures out;
  for (const auto& [name, kwargs] : index.at("option_sets").items()) out.option_sets[name] = options_from_kwargs(kwargs);
  for (const auto& c : index.at("clips")) {
    VadFixtureClip clip;
    clip.key = c.at("key").get<std::string>();
    if (!c.at("file").is_null()) clip.file = c.at("file").get<std::string>();
    clip.num_samples = c.at("num_samples").get<int64_t>();
    clip.sum = c.at("sum").get<double>();
    const size_t offset = c.at("offset").get<size_t>(), windows = c.at("windows").get<size_t>();
    if (offset + windows > stock.size() || offset + windows > rounded.size())
      throw std::runtime_error("VAD fixture probabilities are shorter than index.json says: regenerate them");
    clip.probabilities.assign(stock.begin() + offset, stock.begin() + offset + windows);
    clip.probabilities_ggml_weights.assign(rounded.begin() + offset, rounded.begin() + offset + windows);
    for (const auto& [name, spans] : c.at("timestamps").items()) {
      std::vector<SpeechSpan>& list = clip.timestamps[name];  // present even when empty
      for (const auto& s : spans) list.push_back({s.at(0).get<int64_t>(), s.at(1).get<int64_t>()});
    }
    out.clips.push_back(std::move(clip));
  }
  return out;
}

// The clip's audio as the script loaded it: load_audio() of the shared file, or zeros.
inline std::vector<float> vad_fixture_audio(const VadFixtureClip& clip, const std::string& data_dir) {
  if (!clip.file) return std::vector<float>(static_cast<size_t>(clip.num_samples), 0.0f);
  return load_audio(data_dir + "/" + *clip.file);
}

// whisper.cpp's Silero VAD v6.2.0 in its ggml format, from the shared data.
inline std::string vad_model_file(const std::string& data_dir) { return data_dir + "/vad/for-tests-silero-v6.2.0-ggml.bin"; }

}  // namespace auris::test

namespace auris {
inline void PrintTo(const SpeechSpan& s, std::ostream* os) { *os << "[" << s.start << ", " << s.end << ")"; }
}  // namespace auris
