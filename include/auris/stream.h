// Live transcription: audio pushed as it arrives (a microphone, a network stream), words committed
// within about a second. Whisper decodes 30-s windows and does not stream; this follows
// whisper_streaming's LocalAgreement-2 (Machacek, Dabre and Bojar, 2023): the buffered audio is
// decoded again at every step, prompted with the committed text before it; the words two
// consecutive decodes agree on are committed; the buffer is cut at the end of a completed segment
// once it is longer than trim_seconds, so the work per step stays bounded however long the stream.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "auris/model.h"
#include "auris/transcribe.h"

namespace auris {

struct StreamOptions {
  // Each decode's options: language (unset: detected on the first 2 s of speech, then kept), task,
  // beam_size, temperatures (openai's fallback: without it, tiny.en's committed WER on the long-form
  // file rose from 7.4 to 9.8 and noise got words), thresholds, initial_prompt (the start of the
  // prompt until committed text replaces it). Word timestamps are always on; clip_timestamps, vad
  // and the callbacks must be left unset (StreamOptions::vad is the streaming VAD).
  TranscribeOptions transcribe;
  // New audio that makes update() decode again. 0.1 to 30 s.
  double step_seconds = 0.5;
  // A buffer longer than this is cut at the end of its last completed, committed segment. 1 to 25 s.
  double trim_seconds = 15.0;
  // Set: Silero VAD listens to the audio as it arrives; silence is not decoded, and an utterance is
  // closed, everything in it committed, once min_silence_duration_ms of silence follows it. A
  // closed utterance stays in the buffer as the next one's context (Whisper hears a few seconds of
  // speech alone worse) until 3 s of silence follow it; improbable words a decode places in the
  // silence between it and the next utterance are dropped.
  // threshold, neg_threshold, min_silence_duration_ms, speech_pad_ms and model apply (the others
  // are for whole recordings).
  std::optional<VadParameters> vad;
};

// Checks the options and the VAD model before any work: throws auris::Error naming what is wrong.
void validate(const StreamOptions& options);

struct StreamUpdate {
  // With StreamOptions::vad: the VAD heard speech begin here (stream seconds, its padding
  // included) since the last update. It comes before this update's words.
  std::optional<double> speech_started;
  // Words committed by this update, in order, times in seconds since the stream's first sample.
  // Committed words are final.
  std::vector<Word> committed;
  // The words after them in the latest decode, not yet agreed: replaces the last update's.
  std::vector<Word> tentative;
  // The VAD heard the utterance end, or the input ended: everything before is committed. It comes
  // after this update's words.
  bool utterance_ended = false;
  bool empty() const { return !speech_started && committed.empty() && tentative.empty() && !utterance_ended; }
};

struct StreamStats {
  double received_seconds = 0;  // audio pushed
  double decoded_seconds = 0;   // audio that went through the decoder, counting re-decodes
  int decodes = 0;
  double compute_seconds = 0;   // wall time spent decoding
  // Tokens re-decodes were given as decided (the committed words the buffer still held, as the last
  // decode spelled them): prefilled in one pass instead of decoded again.
  long long forced_tokens = 0;
  double buffered_seconds = 0;  // audio in the buffer now
};

// One stream. Not thread-safe: push() and update() from one thread, or under the caller's lock.
// Several can share one Model.
class StreamingTranscriber {
 public:
  // Throws auris::Error for invalid options (see validate).
  StreamingTranscriber(std::shared_ptr<const Model> model, StreamOptions options = {});
  ~StreamingTranscriber();

  // Appends 16 kHz mono samples in [-1, 1]. Runs the VAD, if on; never decodes.
  void push(std::span<const float> samples);
  // Whether update() has something to do: step_seconds of new audio to decode, an utterance the VAD
  // closed, or a start of speech to report.
  bool ready() const;
  // The VAD closed an utterance that update() has not reported. A caller that pushes more audio
  // than a step before each update() (one catching up) calls update() now, so that this end is kept
  // apart from the next utterance's.
  bool utterance_closed() const;
  // Decodes the buffer if step_seconds of new audio arrived, and returns what changed (empty when
  // not ready()).
  StreamUpdate update();
  // push() and update() for a caller that hands over more than a step at once (one catching up after
  // a slow decode): the samples go in 100 ms at a time, each utterance the VAD closes among them is
  // decoded and handed to on_update before the next one's audio goes in (two ends in one push()
  // would leave the first unreported), and then what is ready() at the end.
  void push_and_update(std::span<const float> samples, const std::function<void(StreamUpdate)>& on_update);
  // The input ended: decodes what is new and commits every word left. The stream can go on after
  // it (times continue), as after a closed utterance.
  StreamUpdate finish();

  StreamStats stats() const;
  // CPU threads the decodes use (0: OpenMP's default).
  void set_threads(int threads);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace auris
