// Dynamic time warping of text tokens against audio frames, as openai/whisper timing.py's dtw_cpu
// and backtrace: the cheapest monotonic path through a cost matrix, with the same tie-breaking
// (diagonal only when strictly cheapest, then up, else left) and the same float32 cost table.
#pragma once

#include <span>
#include <vector>

namespace auris {

// The path from (0, 0) to (rows-1, cols-1), one step per entry. With no columns every step has
// column -1 (and with no rows, row -1), as openai's backtrace gives.
struct DtwPath {
  std::vector<int> text_indices;  // row of each step
  std::vector<int> time_indices;  // column of each step
};

// cost: rows x cols, row-major. Throws auris::Error if the shape does not match.
DtwPath dtw(std::span<const double> cost, int rows, int cols);

}  // namespace auris
