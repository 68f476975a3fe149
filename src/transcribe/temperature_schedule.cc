// openai transcribe()'s temperature schedule, np.arange(start, 1.0 + 1e-6, increment): the
// temperatures a window is decoded at in turn (temperature_fallback.h). Apart from the decoding
// so that the server's form checks link without the engine (src/server/server_input_fuzz.cc).
#include <cmath>
#include <string>
#include <vector>

#include "auris/error.h"
#include "auris/transcribe.h"
#include "util/number_text.h"

namespace auris {

std::vector<double> fallback_temperatures(double start, double increment) {
  if (!std::isfinite(start) || start < 0)
    throw Error("the temperature must be 0 (greedy) or more, got " + number_text(start));
  if (!std::isfinite(increment) || increment < 0)
    throw Error("the temperature increment on fallback must be 0 (no fallback) or more, got " + number_text(increment));
  if (increment == 0) return {start};
  if (start > 1.0)
    throw Error("with a temperature increment on fallback the temperature must be at most 1, got " + number_text(start) +
                ": set the increment to 0 to decode at " + number_text(start) + " alone");
  // np.arange's length, and its values as numpy fills them: start, start + step, then
  // start + i * delta with delta = (start + step) - start (neither a running sum nor start + i * step).
  const double count = std::ceil((1.0 + 1e-6 - start) / increment);
  if (count > kMaxFallbackTemperatures)
    throw Error("a temperature increment on fallback of " + number_text(increment) + " from " + number_text(start) +
                " gives " + number_text(count) + " temperatures; at most " + std::to_string(kMaxFallbackTemperatures) +
                " (openai's default is 0.2: 6 temperatures)");
  const double delta = (start + increment) - start;
  std::vector<double> temperatures;
  for (int i = 0; i < static_cast<int>(count); ++i) temperatures.push_back(i == 1 ? start + increment : start + i * delta);
  return temperatures;
}

}  // namespace auris
