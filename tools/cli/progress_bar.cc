#include "progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace auris::cli {

ProgressBar::ProgressBar(std::string label) : label_(std::move(label)), start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fputc('\n', stderr);
}

bool ProgressBar::enabled() { return ::isatty(STDERR_FILENO) == 1; }

std::string ProgressBar::render(const std::string& label, double done, double total, double elapsed) {
  const double fraction = total > 0 ? std::clamp(done / total, 0.0, 1.0) : 1.0;
  constexpr int kWidth = 24;
  const int filled = static_cast<int>(std::lround(fraction * kWidth));
  std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '.');
  char tail[96];
  if (elapsed > 0 && done > 0) {
    const double speed = done / elapsed;  // audio seconds per second
    const long eta = std::lround((total - done) / speed);
    std::snprintf(tail, sizeof tail, " %3d%%  %.1fx real time  ETA %ld:%02ld", static_cast<int>(fraction * 100),
                  speed, eta / 60, eta % 60);
  } else {
    std::snprintf(tail, sizeof tail, " %3d%%", static_cast<int>(fraction * 100));
  }
  return label + " [" + bar + "]" + tail;
}

void ProgressBar::update(double done, double total) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(stderr, "\r%s\x1b[K", render(label_, done, total, elapsed).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace auris::cli
