// The speech of a recording alone, as faster-whisper's transcribe(vad_filter=True) transcribes it:
// Silero VAD's speech spans over the whole recording (get_speech_timestamps), then the spans'
// samples end to end (collect_chunks), which the seek loop transcribes as one recording. For a file
// both steps stream: detect_speech() takes one pass, computing the window probabilities block by
// block, and SpeechOnlyAudio reads the recording again for each pass of the log-mel, handing out
// only the samples inside the spans. Neither holds the recording.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "audio/sample_source.h"
#include "vad/silero_vad.h"
#include "vad/speech_timestamps.h"

namespace auris {

struct SpeechDetection {
  std::vector<SpeechSpan> spans;  // in order, not overlapping, within the recording
  int64_t num_samples = 0;        // of the whole recording
  int64_t speech_samples() const;  // in the spans: the length of the collected audio
};

// get_speech_timestamps(audio, options): the probabilities of vad_window_count() windows, then the
// spans. The pass is read to its end; its errors pass through.
SpeechDetection detect_speech(const SileroVad& vad, SamplePass& pass, const SpeechTimestampsOptions& options);
SpeechDetection detect_speech(const SileroVad& vad, std::span<const float> samples, const SpeechTimestampsOptions& options);

// collect_speech() of every pass over the recording: the samples inside the spans, in order.
class SpeechOnlyAudio : public SampleSource {
 public:
  // The spans must be in order and not overlap (as detect_speech gives them).
  SpeechOnlyAudio(std::unique_ptr<SampleSource> recording, std::vector<SpeechSpan> spans);

  // A pass throws auris::Error when the recording ends before a span does (it changed since the
  // spans were found).
  std::unique_ptr<SamplePass> open() override;
  const std::string& name() const override { return recording_->name(); }

 private:
  std::unique_ptr<SampleSource> recording_;
  std::vector<SpeechSpan> spans_;
};

}  // namespace auris
