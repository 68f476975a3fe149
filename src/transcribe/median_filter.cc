#include "transcribe/median_filter.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "auris/error.h"

namespace auris {

void median_filter(std::vector<float>& x, int rows, int cols, int filter_width) {
  if (rows < 0 || cols < 0 || x.size() != static_cast<size_t>(rows) * static_cast<size_t>(cols))
    throw Error("median_filter: " + std::to_string(x.size()) + " values do not form " + std::to_string(rows) +
                " x " + std::to_string(cols));
  const int pad = filter_width / 2;
  if (cols <= pad) return;  // reflect padding needs a row longer than the padding
  if (filter_width <= 0 || filter_width % 2 == 0)
    throw Error("median filter width must be a positive odd number, got " + std::to_string(filter_width));

  // torch's sort puts NaN after every number.
  auto less = [](float a, float b) { return std::isnan(b) ? !std::isnan(a) : a < b; };
  std::vector<float> padded(static_cast<size_t>(cols) + 2 * pad), window(static_cast<size_t>(filter_width));
  for (int r = 0; r < rows; ++r) {
    float* row = x.data() + static_cast<size_t>(r) * cols;
    for (int k = 0; k < cols; ++k) padded[pad + k] = row[k];
    for (int k = 1; k <= pad; ++k) {
      padded[pad - k] = row[k];
      padded[pad + cols - 1 + k] = row[cols - 1 - k];
    }
    for (int k = 0; k < cols; ++k) {
      std::copy(padded.begin() + k, padded.begin() + k + filter_width, window.begin());
      std::nth_element(window.begin(), window.begin() + pad, window.end(), less);
      row[k] = window[pad];
    }
  }
}

}  // namespace auris
