// Reader for the long-form fixtures that tools/reference/golden_longform.py writes from openai/whisper's
// transcribe() (tests/fixtures/longform/<model>/*.json): full transcripts with their segments, the
// 30-s windows transcribe() decoded (seek, prompt length, every temperature-fallback attempt), word
// timings, per-utterance texts and WERs. Header-only like golden_fixtures.h: the test binary is built
// from tests/*_test.cc and tests/test_support.cc alone.
//
// Sampling at temperature > 0 uses torch's RNG, which no other runtime reproduces: compare tokens
// only where `temperature == 0` (segments, attempts), which is deterministic.
#pragma once

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "auris/error.h"
#include "test_support.h"

namespace auris::test {

// transcribe() keyword arguments and the decode options it passed on (openai/whisper names).
struct LongformOptions {
  std::vector<double> temperatures;  // the fallback schedule, first entry tried first
  std::optional<double> compression_ratio_threshold, logprob_threshold, no_speech_threshold;
  bool condition_on_previous_text = true;
  bool word_timestamps = false;
  std::string prepend_punctuations, append_punctuations;
  std::optional<double> hallucination_silence_threshold;
  std::optional<std::string> initial_prompt;
  std::optional<std::string> language;  // nullopt: detected by transcribe()
  std::string task = "transcribe";
  std::optional<int> beam_size, best_of;
  std::optional<double> patience;
  int torch_seed = 0;
};

struct LongformWord {
  std::string word;
  double start = 0, end = 0, probability = 0;
};

// One entry of transcribe()'s "segments".
struct LongformSegment {
  int id = 0;
  int seek = 0;  // mel frame (10 ms) where the window it came from starts
  double start = 0, end = 0;
  std::string text;
  std::vector<int> tokens;  // text and timestamp tokens; empty when transcribe() cleared the segment
  double temperature = 0, avg_logprob = 0, compression_ratio = 0, no_speech_prob = 0;
  std::vector<LongformWord> words;  // only with word_timestamps
};

// One decode() call of transcribe()'s temperature fallback on a window.
struct LongformAttempt {
  double temperature = 0, avg_logprob = 0, compression_ratio = 0, no_speech_prob = 0;
  std::optional<std::vector<int>> tokens;  // recorded for temperature 0 only (deterministic)
};

// One 30-s window transcribe() decoded.
struct LongformWindow {
  int seek = 0;          // first mel frame of the window
  int segment_size = 0;  // mel frames of content in it (the rest is zero padding)
  int prompt_len = 0;    // tokens of previous text passed as the prompt (before decode() trims it)
  std::vector<LongformAttempt> attempts;
  bool fallback = false;           // more than one attempt
  double final_temperature = 0;    // temperature of the attempt transcribe() kept
  bool skipped_no_speech = false;  // dropped as silence (no_speech_prob and avg_logprob thresholds)
  int n_segments = 0;
};

// jiwer.process_words over EnglishTextNormalizer-normalized references and hypotheses.
struct LongformWer {
  double wer = 0;
  int substitutions = 0, deletions = 0, insertions = 0, hits = 0, reference_words = 0;
};

// One transcribe() call with everything it decided: hifitts-dev-concat.<set>.json, jfk.words.json.
struct LongformTranscript {
  std::string model, part, clip, option_set;
  LongformOptions options;
  std::string language, text;
  double duration_s = 0;
  std::vector<std::pair<double, double>> silences_s;  // digital-silence runs of >= 5 s in the audio
  bool fallback_happened = false;
  std::optional<LongformWer> wer;  // against the clip's reference text, when it has one
  std::vector<LongformWindow> windows;
  std::vector<LongformSegment> segments;
};

struct LongformUtterance {
  std::string clip, text, reference, normalized_reference, normalized_text;
  std::vector<double> temperatures;  // of each segment
  bool fallback = false;
};

// hifitts-utterances.json: transcribe() of each hifitts-6097 utterance, and the WER over all.
struct LongformUtterances {
  std::string model;
  LongformOptions options;
  LongformWer wer;
  std::vector<LongformUtterance> utterances;
};

// multilingual.json (base only): transcribe() with the language detected.
struct LongformLanguageClip {
  std::string clip, language, text;
  std::optional<std::string> expected_language, reference;
  std::vector<double> temperatures;
  bool fallback = false;
};

namespace longform_detail {

inline std::filesystem::path model_dir(const std::string& model) {
  return std::filesystem::path(fixtures_dir()) / "longform" / model;
}

template <typename T>
std::optional<T> optional_field(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<T>();
}

inline LongformOptions parse_options(const nlohmann::json& j) {
  const auto& t = j.at("transcribe");
  const auto& d = j.at("decode_options");
  LongformOptions o;
  o.temperatures = t.at("temperature").get<std::vector<double>>();
  o.compression_ratio_threshold = optional_field<double>(t, "compression_ratio_threshold");
  o.logprob_threshold = optional_field<double>(t, "logprob_threshold");
  o.no_speech_threshold = optional_field<double>(t, "no_speech_threshold");
  o.condition_on_previous_text = t.at("condition_on_previous_text").get<bool>();
  o.word_timestamps = t.at("word_timestamps").get<bool>();
  o.prepend_punctuations = t.at("prepend_punctuations").get<std::string>();
  o.append_punctuations = t.at("append_punctuations").get<std::string>();
  o.hallucination_silence_threshold = optional_field<double>(t, "hallucination_silence_threshold");
  o.initial_prompt = optional_field<std::string>(t, "initial_prompt");
  o.language = optional_field<std::string>(d, "language");
  o.task = d.at("task").get<std::string>();
  o.beam_size = optional_field<int>(d, "beam_size");
  o.best_of = optional_field<int>(d, "best_of");
  o.patience = optional_field<double>(d, "patience");
  o.torch_seed = j.at("torch_seed").get<int>();
  return o;
}

inline LongformWer parse_wer(const nlohmann::json& j) {
  return {j.at("wer").get<double>(),   j.at("substitutions").get<int>(), j.at("deletions").get<int>(),
          j.at("insertions").get<int>(), j.at("hits").get<int>(),        j.at("reference_words").get<int>()};
}

inline LongformSegment parse_segment(const nlohmann::json& j) {
  LongformSegment s;
  s.id = j.at("id").get<int>();
  s.seek = j.at("seek").get<int>();
  s.start = j.at("start").get<double>();
  s.end = j.at("end").get<double>();
  s.text = j.at("text").get<std::string>();
  s.tokens = j.at("tokens").get<std::vector<int>>();
  s.temperature = j.at("temperature").get<double>();
  s.avg_logprob = j.at("avg_logprob").get<double>();
  s.compression_ratio = j.at("compression_ratio").get<double>();
  s.no_speech_prob = j.at("no_speech_prob").get<double>();
  if (j.contains("words"))
    for (const auto& w : j.at("words"))
      s.words.push_back({w.at("word").get<std::string>(), w.at("start").get<double>(), w.at("end").get<double>(),
                         w.at("probability").get<double>()});
  return s;
}

inline LongformWindow parse_window(const nlohmann::json& j) {
  LongformWindow w;
  w.seek = j.at("seek").get<int>();
  w.segment_size = j.at("segment_size").get<int>();
  w.prompt_len = j.at("prompt_len").get<int>();
  for (const auto& a : j.at("attempts"))
    w.attempts.push_back({a.at("temperature").get<double>(), a.at("avg_logprob").get<double>(),
                          a.at("compression_ratio").get<double>(), a.at("no_speech_prob").get<double>(),
                          optional_field<std::vector<int>>(a, "tokens")});
  w.fallback = j.at("fallback").get<bool>();
  w.final_temperature = j.at("final_temperature").get<double>();
  w.skipped_no_speech = j.at("skipped_no_speech").get<bool>();
  w.n_segments = j.at("n_segments").get<int>();
  return w;
}

inline std::vector<double> temperatures(const nlohmann::json& j) {
  return j.at("temperatures").get<std::vector<double>>();
}

// Reads and parses a fixture file, turning a missing file or a layout mismatch into an Error that
// says how to regenerate it.
template <typename Parse>
auto load(const std::string& model, const std::string& file, Parse parse) {
  const auto path = model_dir(model) / file;
  std::ifstream in(path);
  if (!in) throw Error("cannot open long-form fixture " + path.string() +
                       ": regenerate it with tools/reference/golden_longform.py (see tools/reference/README.md)");
  try {
    return parse(nlohmann::json::parse(in));
  } catch (const nlohmann::json::exception& e) {
    throw Error("long-form fixture " + path.string() + " is not valid or has an unexpected layout (" +
                e.what() + "): regenerate it with tools/reference/golden_longform.py");
  }
}

}  // namespace longform_detail

// The option sets of the 232-s hifitts-dev-concat transcripts.
inline const std::vector<std::string>& longform_option_sets() {
  static const std::vector<std::string> sets = {"greedy_fallback", "beam5", "greedy_words"};
  return sets;
}

// A transcript file of a model, e.g. ("tiny.en", "hifitts-dev-concat.beam5.json"), ("base", "jfk.words.json").
inline LongformTranscript load_longform_transcript(const std::string& model, const std::string& file) {
  using namespace longform_detail;
  return load(model, file, [](const nlohmann::json& j) {
    LongformTranscript t;
    t.model = j.at("model").get<std::string>();
    t.part = j.at("part").get<std::string>();
    t.clip = j.at("clip").get<std::string>();
    t.option_set = j.value("option_set", "");
    t.options = parse_options(j.at("options"));
    t.language = j.at("language").get<std::string>();
    t.text = j.at("text").get<std::string>();
    t.duration_s = j.value("duration_s", 0.0);
    if (j.contains("silences_s"))
      for (const auto& s : j.at("silences_s")) t.silences_s.emplace_back(s.at(0).get<double>(), s.at(1).get<double>());
    t.fallback_happened = j.value("fallback_happened", false);
    if (j.contains("wer")) t.wer = parse_wer(j.at("wer"));
    for (const auto& w : j.at("windows")) t.windows.push_back(parse_window(w));
    for (const auto& s : j.at("segments")) t.segments.push_back(parse_segment(s));
    return t;
  });
}

// transcribe() of the 232-s hifitts-dev-concat.flac with one of longform_option_sets().
inline LongformTranscript load_longform_concat(const std::string& model, const std::string& option_set) {
  return load_longform_transcript(model, "hifitts-dev-concat." + option_set + ".json");
}

inline LongformUtterances load_longform_utterances(const std::string& model) {
  using namespace longform_detail;
  return load(model, "hifitts-utterances.json", [](const nlohmann::json& j) {
    LongformUtterances u;
    u.model = j.at("model").get<std::string>();
    u.options = parse_options(j.at("options"));
    u.wer = parse_wer(j.at("wer"));
    for (const auto& e : j.at("utterances"))
      u.utterances.push_back({e.at("clip").get<std::string>(), e.at("text").get<std::string>(),
                              e.at("reference").get<std::string>(), e.at("normalized_reference").get<std::string>(),
                              e.at("normalized_text").get<std::string>(), temperatures(e),
                              e.at("fallback").get<bool>()});
    return u;
  });
}

// base only: the multilingual clips, language detected by transcribe().
inline std::vector<LongformLanguageClip> load_longform_multilingual(const std::string& model) {
  using namespace longform_detail;
  return load(model, "multilingual.json", [](const nlohmann::json& j) {
    std::vector<LongformLanguageClip> clips;
    for (const auto& e : j.at("clips"))
      clips.push_back({e.at("clip").get<std::string>(), e.at("language").get<std::string>(),
                       e.at("text").get<std::string>(), optional_field<std::string>(e, "expected_language"),
                       optional_field<std::string>(e, "reference"), temperatures(e), e.at("fallback").get<bool>()});
    return clips;
  });
}

}  // namespace auris::test
