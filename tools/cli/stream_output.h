// How `auris stream` prints what it decides. text: a line per batch of committed words with their
// times, and on a terminal the tentative tail below it, dimmed, rewritten at each step. jsonl: one
// JSON object per event, each with "time", the wall-clock seconds since the stream began:
//   {"type":"speech_start","start":..}   (with --vad: the VAD heard speech begin)
//   {"type":"committed","start":..,"end":..,"text":..,"words":[{"word","start","end","probability"}]}
//   {"type":"tentative","start":..,"end":..,"text":..}   (replaces the last tentative)
//   {"type":"utterance_end"}
//   {"type":"end","audio_seconds":..,"compute_seconds":..,"decodes":..}
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "auris/stream.h"

namespace auris::cli {

class StreamOutput {
 public:
  // format: "text" or "jsonl" (anything else throws auris::Error).
  StreamOutput(const std::string& format, std::FILE* out);
  void print(const StreamUpdate& update);
  void print_end(const StreamStats& stats);

 private:
  double now() const;
  void clear_tentative();

  bool jsonl_ = false;
  bool terminal_ = false;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_;
  bool tentative_shown_ = false;
  std::string last_tentative_;
};

}  // namespace auris::cli
