#include "server/openai_responses.h"

#include <nlohmann/json.hpp>

#include "auris/output.h"
#include "tokenizer/languages.h"

namespace auris::server {
namespace {

using nlohmann::json;

// Invalid UTF-8 (a token cut inside a character) becomes U+FFFD instead of an exception.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\n") - first + 1);
}

// OpenAI spells the language out: "english".
std::string language_name(const std::string& code) {
  for (const Language& l : whisper_languages())
    if (l.code == code) return std::string(l.name);
  return code;
}

json verbose(const Transcript& t, const std::string& task) {
  json segments = json::array(), words = json::array();
  for (const Segment& s : t.segments) {
    json segment = {{"id", s.id},
                    {"seek", s.seek},
                    {"start", s.start},
                    {"end", s.end},
                    {"text", s.text},
                    {"tokens", s.tokens},
                    {"temperature", s.temperature},
                    {"avg_logprob", s.avg_logprob},
                    {"compression_ratio", s.compression_ratio},
                    {"no_speech_prob", s.no_speech_prob}};
    if (t.word_timestamps) {
      json segment_words = json::array();
      for (const Word& w : s.words) {
        segment_words.push_back({{"word", w.word}, {"start", w.start}, {"end", w.end}, {"probability", w.probability}});
        words.push_back({{"word", w.word}, {"start", w.start}, {"end", w.end}});
      }
      segment["words"] = std::move(segment_words);
    }
    segments.push_back(std::move(segment));
  }
  json body = {{"task", task},
               {"language", language_name(t.language)},
               {"language_probability", t.language_probability},
               {"duration", t.duration},
               {"duration_after_vad", t.duration_after_vad},
               {"text", trimmed(t.text)},
               {"segments", std::move(segments)}};
  if (t.word_timestamps) body["words"] = std::move(words);
  return body;
}

}  // namespace

Body transcription_body(const Transcript& transcript, ResponseFormat format, const std::string& task) {
  switch (format) {
    case ResponseFormat::kJson:
      return {dump(json{{"text", trimmed(transcript.text)}}), "application/json"};
    case ResponseFormat::kVerboseJson:
      return {dump(verbose(transcript, task)), "application/json"};
    case ResponseFormat::kText:
      return {format_transcript(transcript, OutputFormat::kTxt), "text/plain; charset=utf-8"};
    case ResponseFormat::kSrt:
      return {format_transcript(transcript, OutputFormat::kSrt), "application/x-subrip; charset=utf-8"};
    case ResponseFormat::kVtt:
      return {format_transcript(transcript, OutputFormat::kVtt), "text/vtt; charset=utf-8"};
  }
  return {};
}

std::string delta_event(const Segment& s) {
  const json event = {{"type", "transcript.text.delta"},
                      {"delta", s.text},
                      {"segment", {{"id", s.id}, {"start", s.start}, {"end", s.end}, {"text", s.text}}}};
  return "data: " + dump(event) + "\n\n";
}

std::string done_event(const Transcript& t) {
  const json event = {{"type", "transcript.text.done"},
                      {"text", trimmed(t.text)},
                      {"language", t.language},
                      {"duration", t.duration}};
  return "data: " + dump(event) + "\n\n";
}

std::string error_event(const std::string& error_json) {
  json event = json::parse(error_json);
  event["type"] = "error";
  return "data: " + dump(event) + "\n\n";
}

}  // namespace auris::server
