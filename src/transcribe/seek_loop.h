// openai/whisper transcribe()'s seek loop over one recording's log-mel windows, on any
// WindowEngine: language detection, temperature fallback, the no-speech rule, the previous text as
// prompt, clips, and word timestamps with hallucination skipping. The sequential Transcriber runs
// it over a whole recording; the batched pipeline runs it over each chunk of at most 30 s.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "audio/mel_source.h"
#include "auris/transcribe.h"
#include "decoding/detect_language.h"
#include "model/model_dims.h"
#include "tokenizer/tokenizer.h"
#include "whisper/window_engine.h"

namespace auris {

// A WindowEngine with the window it holds: the same spectrogram again (language detection, then the
// first window of a recording longer than 30 s) keeps its encoder output and cross K/V, and only the
// decoder starts over.
class WindowHolder {
 public:
  explicit WindowHolder(WindowEngine& engine) : engine_(engine) {}
  void set_window(const LogMel& window);
  WindowEngine& engine() { return engine_; }

 private:
  WindowEngine& engine_;
  LogMel current_;  // what the engine holds
};

// The options the seek loop checks, checked before any other work (such as a VAD pass).
void check_transcribe_options(const TranscribeOptions& options);

// An initial prompt's tokens: text as openai encodes it, or ids, which must be text tokens.
std::vector<int> prompt_tokens(const Tokenizer& tokenizer, const TextOrTokens& prompt);

// Nothing to transcribe (digital silence, or no speech found): no segments.
Transcript empty_transcript(const TranscribeOptions& options, const Tokenizer& tokenizer);

// The language of mel's audio as transcribe() detects it: on its first 30-s window, and on the
// windows after it as options.language_detection_segments and _threshold ask. Multilingual models.
// The windows start at first_frame (faster-whisper starts them at the first clip; openai at 0).
LanguageDetection detect_mel_language(WindowHolder& windows, const Tokenizer& tokenizer, MelSource& mel,
                                      const TranscribeOptions& options, int first_frame = 0);

// The transcript of mel's windows. options.vad is not read (the caller hands over the speech's mel).
// No window starts after the frame `no_window_after` (a packed window's last chunk: see
// chunk_packing.h).
Transcript transcribe_mel(WindowHolder& windows, const Tokenizer& tokenizer, const ModelDims& dims, MelSource& mel,
                          const TranscribeOptions& options, int no_window_after = std::numeric_limits<int>::max());

}  // namespace auris
