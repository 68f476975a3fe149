// The engine's counters and ablation switches behind a public Transcriber or BatchTranscriber: the
// tests and benchmarks that show the cache design at work read them here, outside the public API.
#pragma once

#include "auris/batch.h"
#include "auris/transcribe.h"
#include "whisper/engine_counters.h"

namespace auris {

struct EngineAccess {
  static EngineCounters counters(const Transcriber& transcriber);
  static void set_ablations(Transcriber& transcriber, const EngineAblations& ablations);
  static EngineCounters counters(const BatchTranscriber& batch);
};

inline EngineCounters engine_counters(const Transcriber& t) { return EngineAccess::counters(t); }
inline EngineCounters engine_counters(const BatchTranscriber& b) { return EngineAccess::counters(b); }
inline void set_engine_ablations(Transcriber& t, const EngineAblations& a) { EngineAccess::set_ablations(t, a); }

}  // namespace auris
