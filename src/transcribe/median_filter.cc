#include "transcribe/median_filter.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "auris/error.h"

namespace auris {
namespace {

// The median of each 7 consecutive values of `padded`, for `count` outputs: a sorting network pruned
// to what decides the middle value (checked on all 0/1 inputs), straight-line so that the compiler
// vectorises the loop over outputs. Only for values without NaN: min and max would not order NaN as
// torch's sort does.
void median_of_7(const float* __restrict padded, int count, float* __restrict out) {
  auto exchange = [](float& lo, float& hi) {
    const float a = lo, b = hi;
    lo = b < a ? b : a;
    hi = b < a ? a : b;
  };
  for (int c = 0; c < count; ++c) {
    float v0 = padded[c], v1 = padded[c + 1], v2 = padded[c + 2], v3 = padded[c + 3], v4 = padded[c + 4],
          v5 = padded[c + 5], v6 = padded[c + 6];
    exchange(v0, v6), exchange(v2, v3), exchange(v4, v5), exchange(v0, v2), exchange(v1, v4);
    exchange(v3, v6), exchange(v0, v1), exchange(v2, v5), exchange(v3, v4), exchange(v1, v2);
    exchange(v4, v6), exchange(v2, v3), exchange(v4, v5), exchange(v3, v4);
    out[c] = v3;
  }
}

}  // namespace

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
  // Rows are independent; the engine's thread calls this between decode steps.
#pragma omp parallel
  {
    std::vector<float> padded(static_cast<size_t>(cols) + 2 * pad), window(static_cast<size_t>(filter_width));
#pragma omp for schedule(static)
    for (int r = 0; r < rows; ++r) {
      float* row = x.data() + static_cast<size_t>(r) * cols;
      for (int k = 0; k < cols; ++k) padded[pad + k] = row[k];
      for (int k = 1; k <= pad; ++k) {
        padded[pad - k] = row[k];
        padded[pad + cols - 1 + k] = row[cols - 1 - k];
      }
      if (filter_width == 7 && std::none_of(row, row + cols, [](float v) { return std::isnan(v); })) {
        median_of_7(padded.data(), cols, row);
        continue;
      }
      for (int k = 0; k < cols; ++k) {
        std::copy(padded.begin() + k, padded.begin() + k + filter_width, window.begin());
        std::nth_element(window.begin(), window.begin() + pad, window.end(), less);
        row[k] = window[pad];
      }
    }
  }
}

}  // namespace auris
