#include "transcribe/dtw.h"

#include <algorithm>
#include <limits>
#include <string>

#include "auris/error.h"

namespace auris {

DtwPath dtw(std::span<const double> x, int rows, int cols) {
  if (rows < 0 || cols < 0 || x.size() != static_cast<size_t>(rows) * static_cast<size_t>(cols))
    throw Error("dtw needs a rows x cols matrix, got " + std::to_string(x.size()) + " values for " +
                std::to_string(rows) + " x " + std::to_string(cols));
  const size_t width = static_cast<size_t>(cols) + 1;
  // openai keeps the accumulated cost in float32 (each sum is taken in float64, then stored).
  std::vector<float> cost((static_cast<size_t>(rows) + 1) * width, std::numeric_limits<float>::infinity());
  std::vector<signed char> trace(cost.size(), -1);
  auto at = [width](int i, int j) { return static_cast<size_t>(i) * width + static_cast<size_t>(j); };
  cost[0] = 0.0f;
  for (int j = 1; j <= cols; ++j) {
    for (int i = 1; i <= rows; ++i) {
      const float c0 = cost[at(i - 1, j - 1)], c1 = cost[at(i - 1, j)], c2 = cost[at(i, j - 1)];
      float c;
      signed char t;
      if (c0 < c1 && c0 < c2) {
        c = c0, t = 0;
      } else if (c1 < c0 && c1 < c2) {
        c = c1, t = 1;
      } else {
        c = c2, t = 2;
      }
      cost[at(i, j)] = static_cast<float>(x[static_cast<size_t>(i - 1) * cols + (j - 1)] + static_cast<double>(c));
      trace[at(i, j)] = t;
    }
  }

  // Backtrace from the far corner; the first row and column lead straight back to the origin.
  for (int j = 0; j <= cols; ++j) trace[at(0, j)] = 2;
  for (int i = 0; i <= rows; ++i) trace[at(i, 0)] = 1;
  DtwPath path;
  int i = rows, j = cols;
  while (i > 0 || j > 0) {
    path.text_indices.push_back(i - 1);
    path.time_indices.push_back(j - 1);
    switch (trace[at(i, j)]) {
      case 0: --i, --j; break;
      case 1: --i; break;
      case 2: --j; break;
      default: throw Error("dtw reached an unfilled cell: the cost matrix holds NaN");
    }
  }
  std::reverse(path.text_indices.begin(), path.text_indices.end());
  std::reverse(path.time_indices.begin(), path.time_indices.end());
  return path;
}

}  // namespace auris
