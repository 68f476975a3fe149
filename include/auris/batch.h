// Transcription for throughput: faster-whisper's BatchedInferencePipeline. Each recording is cut
// into chunks of at most 30 s (its speech, from voice activity detection, merged as faster-whisper
// merges it; or its plain 30-s windows without VAD), and the chunks of every recording are decoded
// batch_size at a time: each decoder step reads the weights once for all of them (on CUDA, one
// captured step over every chunk's rows). A chunk that is done leaves the batch and the next one
// takes its place, so the batch stays full.
//
// Chunks are transcribed independently (a chunk's previous text does not prompt the next one, as in
// faster-whisper's batched mode), each with openai's temperature fallback and no-speech rule;
// initial_prompt prompts every chunk. condition_on_previous_text, carry_initial_prompt,
// clip_timestamps and hallucination_silence_threshold do not apply.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "auris/model.h"
#include "auris/transcribe.h"

namespace auris {

// faster-whisper's VAD parameters for its batched pipeline: speech chunks of at most 30 s, split
// at silences of 160 ms or more.
VadParameters batched_vad_parameters();

class BatchTranscriber {
 public:
  // batch_size: chunks decoded together, 1 to 256. Throws auris::Error outside that range.
  BatchTranscriber(std::shared_ptr<const Model> model, int batch_size);
  // With the model still loading (say, Model::load in std::async): the files are read and their
  // speech found while it loads, and the model is waited for only before the first window. Its
  // loading error is thrown by the first transcription.
  BatchTranscriber(std::shared_future<std::shared_ptr<const Model>> model, int batch_size);
  ~BatchTranscriber();
  BatchTranscriber(const BatchTranscriber&) = delete;
  BatchTranscriber& operator=(const BatchTranscriber&) = delete;

  // CPU threads of the batched passes (0: OpenMP's count for the calling thread).
  void set_threads(int threads);
  // Packing (off by default): chunks shorter than 20 s share a window, up to 30 s, laid one after
  // another with 1 s of silence between them, and are told apart again by their words' timestamps.
  // Only chunks of one language share a window. Ten 2.5-s files then cost one encoder pass.
  void set_packing(bool on);

  // Transcribes every file ("-" = standard input), their chunks sharing the batch. on_done(i, t) is
  // called as soon as file i is done, on_error(i, message) for a file that cannot be read or
  // transcribed (the others go on); calls come from any thread, one at a time. Files whose language
  // is not given (multilingual models) are detected first, on their first chunk (and the chunks
  // after it that options.language_detection_segments allows, while none passes the threshold). The
  // files go into the batch 128 at a time, so open files and memory stay bounded however many are
  // given. Throws auris::Error for invalid options, before any work.
  void transcribe_files(const std::vector<std::string>& paths, const TranscribeOptions& options,
                        const std::function<void(size_t index, Transcript transcript)>& on_done,
                        const std::function<void(size_t index, const std::string& error)>& on_error);

  // One recording in memory (mono, 16 kHz).
  Transcript transcribe(std::span<const float> samples, int sample_rate, const TranscribeOptions& options = {});

 private:
  friend struct EngineAccess;  // the engine's counters, for tests and benchmarks (src/api/engine_access.h)
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace auris
