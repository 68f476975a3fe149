// What the library's own code reaches behind a public Transcriber or BatchTranscriber, outside the
// public API: the engine's counters and ablation switches (the tests and benchmarks that show the
// cache design at work), and the seek loop over a spectrogram the caller computed (the Python
// package detects the language eagerly, then transcribes the same spectrogram: computed once, and
// the first window encoded once).
#pragma once

#include <map>
#include <string>

#include "audio/mel_source.h"
#include "auris/batch.h"
#include "auris/transcribe.h"
#include "decoding/detect_language.h"
#include "transcribe/speech_only_audio.h"
#include "whisper/engine_counters.h"

namespace auris {

struct EngineAccess {
  static EngineCounters counters(const Transcriber& transcriber);
  static void set_ablations(Transcriber& transcriber, const EngineAblations& ablations);
  static EngineCounters counters(const BatchTranscriber& batch);
  // How many files BatchTranscriber::transcribe_files takes into the batch at a time (128).
  static void set_files_at_once(BatchTranscriber& batch, size_t files);

  // The language of mel's audio as Transcriber::transcribe with `options` detects it, or from
  // first_frame on (detect_mel_language).
  static LanguageDetection detect_language(Transcriber& transcriber, MelSource& mel, const TranscribeOptions& options,
                                           int first_frame = 0);
  // Transcriber::transcribe of the recording mel is the spectrogram of; options.vad unset.
  static Transcript transcribe(Transcriber& transcriber, MelSource& mel, const TranscribeOptions& options);
  // The same with VAD: speech_mel is the spectrogram of the speech that `speech` found (its spans
  // end to end; null when it found none), and the times are mapped back to the whole recording.
  static Transcript transcribe_speech(Transcriber& transcriber, MelSource* speech_mel, const SpeechDetection& speech,
                                      const TranscribeOptions& options);
};

inline EngineCounters engine_counters(const Transcriber& t) { return EngineAccess::counters(t); }
inline EngineCounters engine_counters(const BatchTranscriber& b) { return EngineAccess::counters(b); }
inline void set_engine_ablations(Transcriber& t, const EngineAblations& a) { EngineAccess::set_ablations(t, a); }

}  // namespace auris
