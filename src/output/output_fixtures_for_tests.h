// Test-only access to tests/fixtures/output (tools/reference/make_output_fixtures.py): synthetic
// transcribe() results and what openai/whisper's writers wrote for them.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "auris/output.h"
#include "auris/transcribe.h"
#include "test_support.h"

namespace auris::test {

inline const std::vector<std::string>& output_fixture_names() {
  static const std::vector<std::string> names = {"without_words", "with_words",  "non_ascii",
                                                 "long_random",   "hours",       "hours_without_words",
                                                 "empty",         "empty_segments"};
  return names;
}

inline nlohmann::json read_output_fixture(const std::string& file) {
  const std::string path = fixtures_dir() + "/output/" + file;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("missing fixture " + path + " (run tools/reference/make_output_fixtures.py)");
  return nlohmann::json::parse(in);
}

inline nlohmann::json output_results_fixture(const std::string& name) {
  return read_output_fixture("results_" + name + ".json");
}

// The fixture's Python result dict as an auris::Transcript.
inline Transcript transcript_from_fixture(const nlohmann::json& result) {
  Transcript t;
  t.text = result.at("text").get<std::string>();
  t.language = result.at("language").get<std::string>();
  for (const auto& s : result.at("segments")) {
    Segment segment;
    segment.id = s.at("id").get<int>();
    segment.seek = s.at("seek").get<int>();
    segment.start = s.at("start").get<double>();
    segment.end = s.at("end").get<double>();
    segment.text = s.at("text").get<std::string>();
    segment.tokens = s.at("tokens").get<std::vector<int>>();
    segment.temperature = s.at("temperature").get<double>();
    segment.avg_logprob = s.at("avg_logprob").get<double>();
    segment.compression_ratio = s.at("compression_ratio").get<double>();
    segment.no_speech_prob = s.at("no_speech_prob").get<double>();
    if (s.contains("words")) {
      for (const auto& w : s.at("words"))
        segment.words.push_back({w.at("word").get<std::string>(), w.at("start").get<double>(), w.at("end").get<double>(),
                                 w.at("probability").get<double>()});
    }
    t.segments.push_back(std::move(segment));
  }
  return t;
}

}  // namespace auris::test

namespace auris::test {

// The SubtitleOptions of one fixture case ({"max_line_width": null | int, ...}).
inline SubtitleOptions subtitle_options_from_fixture(const nlohmann::json& o) {
  SubtitleOptions options;
  const auto optional_int = [](const nlohmann::json& v) -> std::optional<int> {
    return v.is_null() ? std::nullopt : std::optional<int>(v.get<int>());
  };
  options.max_line_width = optional_int(o.at("max_line_width"));
  options.max_line_count = optional_int(o.at("max_line_count"));
  options.max_words_per_line = optional_int(o.at("max_words_per_line"));
  options.highlight_words = o.at("highlight_words").get<bool>();
  return options;
}

// Runs format(transcript, options) on every fixture case and compares with openai's `key` output
// ("vtt" or "srt"); returns how many cases were compared.
template <typename Format>
int expect_subtitles_match(const std::string& key, Format format) {
  int compared = 0;
  for (const std::string& name : output_fixture_names()) {
    const auto fixture = output_results_fixture(name);
    const Transcript transcript = transcript_from_fixture(fixture.at("result"));
    const auto& outputs = fixture.at("subtitle_outputs");
    for (const auto& c : fixture.at("subtitles")) {
      const std::string expected = outputs.at(c.at(key).get<size_t>()).get<std::string>();
      EXPECT_EQ(format(transcript, subtitle_options_from_fixture(c.at("options"))), expected)
          << name << " " << c.at("options").dump();
      ++compared;
    }
  }
  return compared;
}

}  // namespace auris::test

namespace auris::test {

inline Segment text_segment(const std::string& text, double start = 0.0, double end = 0.0, int id = 0) {
  Segment s;
  s.id = id;
  s.start = start;
  s.end = end;
  s.text = text;
  return s;
}

inline SubtitleOptions subtitle_options(std::optional<int> max_line_width, std::optional<int> max_line_count,
                                        std::optional<int> max_words_per_line, bool highlight_words = false) {
  SubtitleOptions o;
  o.max_line_width = max_line_width;
  o.max_line_count = max_line_count;
  o.max_words_per_line = max_words_per_line;
  o.highlight_words = highlight_words;
  return o;
}

}  // namespace auris::test
