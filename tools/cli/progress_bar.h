// A one-line progress bar on stderr: percent of the audio, speed as a multiple of real time, and
// the time left. Drawn only when stderr is a terminal, so logs and pipes stay clean.
#pragma once

#include <chrono>
#include <string>

namespace auris::cli {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();  // ends the line if anything was drawn
  void update(double done_seconds, double total_seconds);
  static bool enabled();

  // The bar's text for these figures (pure, for tests).
  static std::string render(const std::string& label, double done_seconds, double total_seconds,
                            double elapsed_seconds);

 private:
  std::string label_;
  std::chrono::steady_clock::time_point start_;
  bool drawn_ = false;
};

}  // namespace auris::cli
