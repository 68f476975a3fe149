#include "stream_output.h"

#include <unistd.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "auris/error.h"

namespace auris::cli {

namespace {

std::string text_of(const std::vector<Word>& words) {
  std::string text;
  for (const Word& w : words) text += w.word;
  const size_t first = text.find_first_not_of(' ');
  return first == std::string::npos ? std::string() : text.substr(first);
}

// Seconds with millisecond precision: enough, and stable in the output.
double rounded(double seconds) { return std::round(seconds * 1000.0) / 1000.0; }

}  // namespace

StreamOutput::StreamOutput(const std::string& format, std::FILE* out) : out_(out), start_(std::chrono::steady_clock::now()) {
  if (format == "jsonl")
    jsonl_ = true;
  else if (format != "text")
    throw Error("--output-format must be text or jsonl, not " + format);
  terminal_ = !jsonl_ && isatty(fileno(out));
}

double StreamOutput::now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

void StreamOutput::clear_tentative() {
  if (!tentative_shown_) return;
  std::fputs("\r\033[K", out_);
  tentative_shown_ = false;
}

void StreamOutput::print(const StreamUpdate& update) {
  const double time = rounded(now());
  if (jsonl_) {
    if (update.speech_started)
      std::fprintf(out_, "%s\n", nlohmann::json({{"type", "speech_start"}, {"start", rounded(*update.speech_started)}, {"time", time}}).dump().c_str());
    if (!update.committed.empty()) {
      nlohmann::json words = nlohmann::json::array();
      for (const Word& w : update.committed)
        words.push_back({{"word", w.word}, {"start", rounded(w.start)}, {"end", rounded(w.end)},
                         {"probability", rounded(w.probability)}});
      const nlohmann::json event = {{"type", "committed"}, {"start", rounded(update.committed.front().start)},
                                    {"end", rounded(update.committed.back().end)}, {"text", text_of(update.committed)},
                                    {"words", words}, {"time", time}};
      std::fprintf(out_, "%s\n", event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    }
    const std::string tentative = text_of(update.tentative);
    if (tentative != last_tentative_ && !update.utterance_ended) {
      nlohmann::json event = {{"type", "tentative"}, {"text", tentative}, {"time", time}};
      if (!update.tentative.empty()) {
        event["start"] = rounded(update.tentative.front().start);
        event["end"] = rounded(update.tentative.back().end);
      }
      std::fprintf(out_, "%s\n", event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    }
    last_tentative_ = update.utterance_ended ? std::string() : tentative;
    if (update.utterance_ended) std::fprintf(out_, "%s\n", nlohmann::json({{"type", "utterance_end"}, {"time", time}}).dump().c_str());
  } else {
    clear_tentative();
    if (!update.committed.empty())
      std::fprintf(out_, "[%8.2f --> %8.2f] %s\n", update.committed.front().start, update.committed.back().end,
                   text_of(update.committed).c_str());
    if (terminal_ && !update.tentative.empty()) {
      std::string tentative = text_of(update.tentative);
      if (tentative.size() > 70) tentative = "..." + tentative.substr(tentative.size() - 67);
      std::fprintf(out_, "\033[2m%s\033[0m", tentative.c_str());  // dim: not yet decided
      tentative_shown_ = true;
    }
  }
  std::fflush(out_);
}

void StreamOutput::print_end(const StreamStats& stats) {
  if (jsonl_) {
    const nlohmann::json event = {{"type", "end"}, {"audio_seconds", rounded(stats.received_seconds)},
                                  {"compute_seconds", rounded(stats.compute_seconds)}, {"decodes", stats.decodes},
                                  {"decoded_seconds", rounded(stats.decoded_seconds)}, {"forced_tokens", stats.forced_tokens}, {"time", rounded(now())}};
    std::fprintf(out_, "%s\n", event.dump().c_str());
  } else {
    clear_tentative();
  }
  std::fflush(out_);
}

}  // namespace auris::cli
