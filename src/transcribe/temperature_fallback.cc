#include "transcribe/temperature_fallback.h"

#include <cmath>
#include <string>

#include "auris/error.h"
#include "decoding/decoding_task.h"
#include "util/number_text.h"

namespace auris {
namespace {

bool needs_fallback(const DecodingResult& r, const TranscribeOptions& o) {
  bool fallback = false;
  if (o.compression_ratio_threshold && r.compression_ratio > *o.compression_ratio_threshold) fallback = true;
  if (o.logprob_threshold && r.avg_logprob < *o.logprob_threshold) fallback = true;
  // Silence: the no-speech rule will skip the window, so retrying at a higher temperature is pointless.
  if (o.no_speech_threshold && r.no_speech_prob > *o.no_speech_threshold && o.logprob_threshold &&
      r.avg_logprob < *o.logprob_threshold)
    fallback = false;
  return fallback;
}

}  // namespace

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

DecodingOptions options_at_temperature(const DecodingOptions& decoding, double temperature) {
  DecodingOptions attempt = decoding;
  attempt.temperature = temperature;
  if (temperature > 0) {
    attempt.beam_size.reset();
    attempt.patience.reset();
  } else {
    attempt.best_of.reset();
  }
  return attempt;
}

DecodingResult decode_with_fallback(Inference& inference, const Tokenizer& tokenizer, const ModelDims& dims,
                                    const DecodingOptions& decoding, const TranscribeOptions& options,
                                    const std::vector<int>& prompt) {
  DecodingResult result;
  for (double temperature : options.temperatures) {
    DecodingOptions attempt = options_at_temperature(decoding, temperature);
    attempt.prompt = prompt;
    DecodingTask task(tokenizer, dims, attempt);
    result = task.run(inference);  // the window's cross K/V are reused by every retry
    if (!needs_fallback(result, options)) break;
  }
  return result;
}

bool is_silence(const DecodingResult& result, const TranscribeOptions& options) {
  return options.no_speech_threshold && result.no_speech_prob > *options.no_speech_threshold &&
         !(options.logprob_threshold && result.avg_logprob > *options.logprob_threshold);
}

}  // namespace auris
