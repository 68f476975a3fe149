// One input of batched transcription: where its chunks lie (its VAD speech grouped into at most 30 s,
// or its plain 30-s windows), the reader that hands them out, and the segments they have given. The
// batch transcriber and the scheduler behind `auris serve` both cut their inputs this way.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "audio/sample_source.h"
#include "auris/transcribe.h"
#include "batch/chunk_reader.h"
#include "batch/chunk_transcription.h"
#include "model/model_dims.h"
#include "tokenizer/tokenizer.h"
#include "transcribe/speech_only_audio.h"
#include "vad/speech_chunks.h"
#include "whisper/window_engine.h"

namespace auris {

class SileroVad;

struct Recording {
  double duration = 0.0;
  double duration_after_vad = 0.0;
  std::vector<SpeechSpan> speech;  // with VAD: where the chunks' audio came from
  std::vector<double> offsets;     // each chunk's start on the transcribed timeline
  std::unique_ptr<ChunkReader> reader;
  std::map<size_t, std::vector<float>> taken_early;  // chunks read for language detection
  // Guards taken_early once the batch's slots take chunks (several at once); a pointer, so that a
  // Recording stays movable.
  std::unique_ptr<std::mutex> taken_early_mutex = std::make_unique<std::mutex>();
  std::string language;
  double language_probability = 1.0;  // where the language was given, or the model is English-only
  std::vector<std::vector<Segment>> results;  // per chunk
  size_t remaining = 0;
  std::string error;  // the first error, if any

  size_t chunks() const { return offsets.size(); }
  // Chunk c's samples and offset; each chunk can be taken once.
  AudioChunk chunk(size_t c);
};

// The options batched transcription cannot use, and the ones every chunk checks, before any work:
// throws auris::Error naming the option. Without dims (the model still loading), the ones that
// depend on the model are left for a second call.
void check_batch_options(const TranscribeOptions& options, const ModelDims* dims);

// One pass over the recording finds its chunks: with options.vad, its speech (found by `vad`)
// grouped into at most 30 s (faster-whisper's collect_chunks); else its consecutive 30-s windows,
// none where the audio is digital silence. A later pass, as the batch asks for them, reads them.
// Throws auris::Error for audio that cannot be read or holds no samples. known_speech: the speech
// options.vad finds in this audio, found already (no pass of its own then).
Recording measure_recording(std::unique_ptr<SampleSource> source, const TranscribeOptions& options,
                            const SileroVad* vad, const SpeechDetection* known_speech = nullptr);

// Detects the recording's language on its first chunk, each padded to a 30-s window as openai
// detects it, and on the chunks after it as far as options.language_detection_segments and
// language_detection_threshold ask (faster-whisper's rule, decoding/detect_language.h). The chunks
// read are kept for their transcription.
void detect_recording_language(WindowEngine& engine, const Tokenizer& tokenizer, int n_mels,
                               const TranscribeOptions& options, Recording& r);

// A chunk's segments on the original timeline: VAD's speech times mapped back.
void restore_chunk_times(const Recording& r, std::vector<Segment>& segments);

// The recording's transcript from its chunks' segments (times restored by restore_chunk_times), in
// chunk order; the recording's reader and results are released.
Transcript assemble_transcript(Recording& r, const TranscribeOptions& options);

}  // namespace auris
