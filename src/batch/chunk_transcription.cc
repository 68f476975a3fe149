#include "batch/chunk_transcription.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "audio/mel_source.h"
#include "transcribe/seek_loop.h"

namespace auris {

TranscribeOptions chunk_options(const TranscribeOptions& options, const std::string& language) {
  TranscribeOptions o = options;
  o.decoding.language = language;
  o.vad.reset();
  o.clip_timestamps.clear();
  o.on_segment = nullptr;
  o.on_progress = nullptr;
  return o;
}

std::vector<Segment> transcribe_chunk(WindowEngine& engine, const Tokenizer& tokenizer, const ModelDims& dims,
                                      const TranscribeOptions& options, AudioChunk chunk) {
  InMemoryMel mel(chunk.samples, dims.n_mels);
  const double length = static_cast<double>(chunk.samples.size()) / kSampleRate;
  chunk.samples = std::vector<float>();
  WindowHolder windows(engine);
  const int no_window_after = std::isfinite(chunk.no_window_after_s)
                                  ? static_cast<int>(std::floor(chunk.no_window_after_s * kSampleRate / kHopLength))
                                  : std::numeric_limits<int>::max();
  Transcript t = transcribe_mel(windows, tokenizer, dims, mel, options, no_window_after);
  // A timestamp past the chunk's audio (the model may place a last one beyond it) ends at its end.
  auto place = [&](double t) { return std::min(t, length) + chunk.offset_s; };
  std::vector<Segment> kept;
  for (Segment& s : t.segments) {
    if (s.tokens.empty()) continue;  // emptied by the seek loop: instantaneous or textless
    s.seek += static_cast<int>(chunk.offset_s * 100.0 + 0.5);
    s.start = place(s.start);
    s.end = place(s.end);
    for (Word& w : s.words) {
      w.start = place(w.start);
      w.end = place(w.end);
    }
    kept.push_back(std::move(s));
  }
  return kept;
}

}  // namespace auris
