#include "transcribe/temperature_fallback.h"

#include "decoding/decoding_task.h"

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
