// --print-timings: the engine's per-stage figures as one JSON line, read by bench/speed.py.
#pragma once

#include <string>

#include "auris/model.h"
#include "auris/transcribe.h"
#include "whisper/engine_counters.h"

namespace auris::cli {

// {"model_load_s":..,"encoder_windows":..,"encoder_ms_per_window":..,"prefill_ms":..,
//  "decode_ms_per_step":..,"model":{"n_audio_state":..,...}}: the model's dimensions let the
// benchmark count FLOPs and bytes. model_load_s: reading, converting and packing the weights.
std::string engine_timings_json(const EngineCounters& c, const ModelInfo& model, double model_load_seconds);

}  // namespace auris::cli
