#include "stream_input.h"

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "audio/audio_stream.h"
#include "auris/error.h"

namespace auris::cli {

StreamInput::StreamInput(const std::string& path, const std::string& input_format, bool realtime,
                         const std::atomic<bool>& stop)
    : name_(path == "-" ? "standard input" : path), realtime_(realtime), stop_(stop) {
  if (path == "-") {
    // A pipe or a terminal brings audio as it is made; a file redirected in is read step by step.
    struct stat st {};
    live_ = realtime || fstat(STDIN_FILENO, &st) != 0 || !S_ISREG(st.st_mode);
  } else {
    AudioInput input;
    input.format = input_format;
    input.stop = &stop;
    ffmpeg_ = std::make_unique<AudioStream>(path, input);
    name_ = ffmpeg_->name();
    live_ = realtime || !input_format.empty() || path.find("://") != std::string::npos;
  }
  start_ = std::chrono::steady_clock::now();
}

StreamInput::~StreamInput() = default;

size_t StreamInput::read(std::vector<float>& out, size_t max_samples) {
  if (stop_.load()) return 0;
  const size_t n = ffmpeg_ ? ffmpeg_->read(out, max_samples) : read_raw_stdin(out, max_samples);
  samples_ += static_cast<long long>(n);
  if (realtime_ && n > 0) {
    // The block's last sample is due at start + samples / 16 kHz.
    const auto due = start_ + std::chrono::microseconds(samples_ * 1000000 / 16000);
    while (!stop_.load() && std::chrono::steady_clock::now() < due)
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(due - std::chrono::steady_clock::now(),
                                                                                 std::chrono::milliseconds(50)));
  }
  return n;
}

namespace {

// The container a stream's first bytes announce, or null: raw PCM starting with one of these is
// all but impossible, and a file piped in by mistake would otherwise decode as noise.
const char* container_of(const std::string& head) {
  if (head.compare(0, 4, "RIFF") == 0) return "a WAV file";
  if (head.compare(0, 4, "fLaC") == 0) return "a FLAC file";
  if (head.compare(0, 4, "OggS") == 0) return "an Ogg file";
  if (head.compare(0, 3, "ID3") == 0) return "an MP3 file";
  if (head.size() >= 8 && head.compare(4, 4, "ftyp") == 0) return "an MP4/M4A file";
  return nullptr;
}

}  // namespace

void StreamInput::check_raw(const unsigned char* bytes, size_t n) {
  if (head_.size() >= 8) return;
  head_.append(reinterpret_cast<const char*>(bytes), std::min(n, 8 - head_.size()));
  if (head_.size() < 4) return;
  if (const char* container = container_of(head_))
    throw Error("standard input holds " + std::string(container) + ", but `auris stream -` reads raw 16-kHz mono s16le "
                "PCM: give the file's path instead (with --realtime to pace it), or convert it with "
                "`ffmpeg -i IN -f s16le -ac 1 -ar 16000 -`");
}

size_t StreamInput::read_raw_stdin(std::vector<float>& out, size_t max_samples) {
  std::vector<unsigned char> bytes(max_samples * 2);
  size_t have = partial_.size();
  if (have > 0) std::memcpy(bytes.data(), partial_.data(), have);
  partial_.clear();
  while (have < 2) {
    // Poll so that Ctrl-C is seen while standard input is quiet.
    pollfd fd{STDIN_FILENO, POLLIN, 0};
    const int ready = poll(&fd, 1, 100);
    if (stop_.load()) return 0;
    if (ready < 0 && errno != EINTR) throw Error(std::string("cannot read standard input: ") + std::strerror(errno));
    if (ready <= 0) continue;
    const ssize_t got = ::read(STDIN_FILENO, bytes.data() + have, bytes.size() - have);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("cannot read standard input: ") + std::strerror(errno));
    }
    if (got == 0) {
      if (have == 1)
        throw Error("standard input ended inside a sample (an odd number of bytes): it must be raw 16-kHz mono "
                    "s16le PCM, e.g. from `ffmpeg -i IN -f s16le -ac 1 -ar 16000 -`");
      return 0;
    }
    check_raw(bytes.data() + have, static_cast<size_t>(got));
    have += static_cast<size_t>(got);
  }
  const size_t samples = have / 2;
  for (size_t i = 0; i < samples; ++i) {
    const int16_t v = static_cast<int16_t>(bytes[2 * i] | (bytes[2 * i + 1] << 8));
    out.push_back(v / 32768.0f);
  }
  if (have % 2) partial_.push_back(bytes[have - 1]);
  return samples;
}

}  // namespace auris::cli
