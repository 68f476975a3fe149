// Pull-based audio decoding through the FFmpeg libraries: any container and codec FFmpeg knows,
// resampled to 16 kHz mono, handed out a block at a time so a long recording is never held whole.
// load_audio is built on this, so the streamed and the in-memory samples cannot differ.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace auris {

// openai's load_audio: the s16 output of ffmpeg divided by 32768.
inline float s16_to_float(int16_t v) { return v / 32768.0f; }

// Where audio comes from when it is not a plain file: a capture device or a network stream.
struct AudioInput {
  // FFmpeg's input format, as its -f: a device ("alsa", "pulse") whose name is the path, or empty
  // to detect the format of a file or URL.
  std::string format;
  // Set: reading ends, as at the end of the input, once it is true (checked while FFmpeg waits).
  const std::atomic<bool>* stop = nullptr;
  // A network read that waits longer than this for data fails.
  double network_timeout_seconds = 15.0;
  // The audio converted to stereo, not mono: read() hands out left and right samples interleaved
  // (ask for an even count), as faster-whisper's decode_audio(split_stereo=True) has them.
  bool stereo = false;
};

class AudioStream {
 public:
  // Opens the first audio stream of path: a file, "-" (stdin), a URL FFmpeg reads (http, rtsp,
  // icecast...) or, with input.format, a capture device. Throws auris::Error for a missing, empty
  // or unreadable file, a device or URL that cannot be opened, a file with no audio stream, or
  // audio no decoder handles.
  explicit AudioStream(const std::string& path, const AudioInput& input = {});
  ~AudioStream();
  AudioStream(const AudioStream&) = delete;
  AudioStream& operator=(const AudioStream&) = delete;

  // Appends up to max_samples 16 kHz mono samples in [-1, 1] (s16 / 32768, as openai's load_audio)
  // to out and returns how many; 0 only at the end. Throws auris::Error at the end when the whole
  // stream decoded to nothing.
  size_t read(std::vector<float>& out, size_t max_samples);
  // The same samples as the s16 values FFmpeg produced (read() divides these by 32768).
  size_t read_s16(std::vector<int16_t>& out, size_t max_samples);

  // "standard input" or the path, for messages.
  const std::string& name() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace auris
