// What `auris stream` listens to: raw 16-kHz mono s16le PCM on standard input ("-"), or anything
// FFmpeg opens (a file, a URL, a capture device with --input-format), optionally paced at real time.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace auris {
class AudioStream;
}

namespace auris::cli {

class StreamInput {
 public:
  // Throws auris::Error when the input cannot be opened. `stop` ends reading early (Ctrl-C).
  StreamInput(const std::string& path, const std::string& input_format, bool realtime, const std::atomic<bool>& stop);
  ~StreamInput();

  // Appends up to max_samples samples to out; 0 only at the end (or once stop is set). Paced at
  // real time: returns a block only once the wall clock has reached its last sample.
  size_t read(std::vector<float>& out, size_t max_samples);
  // Whether the audio arrives as it is made (a pipe or terminal on stdin, a device, a URL, a paced
  // file), as opposed to a file (or a file redirected to stdin) read as fast as the decoder takes it.
  bool live() const { return live_; }
  const std::string& name() const { return name_; }

 private:
  size_t read_raw_stdin(std::vector<float>& out, size_t max_samples);
  // Throws auris::Error once stdin's first bytes show a container (a WAV or FLAC file, ...).
  void check_raw(const unsigned char* bytes, size_t n);

  std::string name_;
  std::unique_ptr<AudioStream> ffmpeg_;  // null for raw stdin
  bool live_ = false, realtime_ = false;
  const std::atomic<bool>& stop_;
  std::chrono::steady_clock::time_point start_;
  long long samples_ = 0;
  std::vector<unsigned char> partial_;  // stdin bytes of a sample not yet whole
  std::string head_;                     // stdin's first 8 bytes, for check_raw
};

}  // namespace auris::cli
