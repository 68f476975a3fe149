// openai transcribe()'s decode_with_fallback and its no-speech rule, for one window: the window is
// decoded at each temperature in turn until the result passes the compression-ratio and
// log-probability thresholds (or looks like silence, where retrying is pointless).
#pragma once

#include <vector>

#include "auris/decoding.h"
#include "auris/transcribe.h"
#include "decoding/inference.h"
#include "model/model_dims.h"
#include "tokenizer/tokenizer.h"

namespace auris {

// One attempt's options at a temperature of the schedule, as openai's decode_with_fallback makes
// them: beam search (and patience) at temperature 0 only, best-of sampling above it.
DecodingOptions options_at_temperature(const DecodingOptions& decoding, double temperature);

// decoding: the window's options (language, task, beams, ...), whose temperature, beam and best-of
// the schedule overrides per attempt; prompt: the tokens after <|startofprev|>. Every attempt reuses
// the window the inference holds.
DecodingResult decode_with_fallback(Inference& inference, const Tokenizer& tokenizer, const ModelDims& dims,
                                    const DecodingOptions& decoding, const TranscribeOptions& options,
                                    const std::vector<int>& prompt);

// The no-speech rule: the window is silence and gives no segments.
bool is_silence(const DecodingResult& result, const TranscribeOptions& options);

}  // namespace auris
