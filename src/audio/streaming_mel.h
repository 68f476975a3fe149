// The padded log-mel spectrogram of an audio file, streamed: memory stays bounded however long the
// recording. openai clamps every value to (global max - 8), so the constructor reads the whole file
// once to find that max and the length. A recording whose frames fit in keep_bytes (the default: 35
// minutes at 80 bins) keeps them from that pass, and its windows cost a copy. A longer one drops them
// and its windows come from a second pass over the samples through a ring of at most one window's
// frames (a SampleSource: a file decoded again, standard input replayed from its spool, or only the
// speech of either, transcribe/speech_only_audio.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "audio/mel_source.h"

namespace auris {

class SampleSource;  // audio/sample_source.h

class StreamingMel : public MelSource {
 public:
  // path: an audio file, or "-" for standard input. Throws auris::Error as load_audio does for
  // unreadable audio, and for n_mels other than 80/128.
  StreamingMel(const std::string& path, int n_mels, size_t keep_bytes = kDefaultKeepBytes);
  // The samples of any source, opened once or twice (as above); its errors pass through.
  StreamingMel(std::unique_ptr<SampleSource> audio, int n_mels, size_t keep_bytes = kDefaultKeepBytes);
  static constexpr size_t kDefaultKeepBytes = size_t{64} << 20;
  ~StreamingMel() override;
  StreamingMel(const StreamingMel&) = delete;
  StreamingMel& operator=(const StreamingMel&) = delete;

  int n_mels() const override;
  int content_frames() const override;
  int64_t num_samples() const override;
  bool silent() const override;
  // Bit-identical to InMemoryMel's window. A window behind the previous one, where the frames were
  // not kept, costs a new pass from the start. Throws auris::Error when the file changed since the
  // first pass.
  LogMel window(int offset, int length) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace auris
