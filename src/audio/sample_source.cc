#include "audio/sample_source.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "audio/audio_stream.h"
#include "auris/error.h"

namespace auris {

struct AudioFileSource::Spool {
  struct Closer {
    void operator()(FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<FILE, Closer> file;
  bool complete = false;  // the first pass reached the end of standard input
};

namespace {

// The decoder's samples, optionally copied to the spool as they come.
class DecoderPass : public SamplePass {
 public:
  DecoderPass(const std::string& path, AudioFileSource::Spool* spool) : stream_(path), spool_(spool) {}

  size_t read(std::vector<float>& out, size_t max_samples) override {
    s16_.clear();
    const size_t n = stream_.read_s16(s16_, max_samples);
    if (spool_ && n > 0 && std::fwrite(s16_.data(), sizeof(int16_t), n, spool_->file.get()) != n) {
      throw Error("cannot write the temporary copy of " + stream_.name() + " (" + std::strerror(errno) +
                  "): free space in the temporary directory ($TMPDIR or /tmp)");
    }
    if (spool_ && n == 0) spool_->complete = true;
    for (int16_t v : s16_) out.push_back(s16_to_float(v));
    return n;
  }

 private:
  AudioStream stream_;
  AudioFileSource::Spool* spool_;
  std::vector<int16_t> s16_;
};

class SpoolPass : public SamplePass {
 public:
  explicit SpoolPass(FILE* spool) : spool_(spool) {
    if (std::fflush(spool_) != 0) {
      throw Error(std::string("cannot write the temporary copy of standard input (") + std::strerror(errno) +
                  "): free space in the temporary directory ($TMPDIR or /tmp)");
    }
    if (std::fseek(spool_, 0, SEEK_SET) != 0) {
      throw Error(std::string("cannot rewind the temporary copy of standard input: ") + std::strerror(errno));
    }
  }

  size_t read(std::vector<float>& out, size_t max_samples) override {
    s16_.resize(max_samples);
    const size_t n = std::fread(s16_.data(), sizeof(int16_t), max_samples, spool_);
    if (n < max_samples && std::ferror(spool_)) {
      throw Error(std::string("cannot read back the temporary copy of standard input: ") + std::strerror(errno));
    }
    for (size_t i = 0; i < n; ++i) out.push_back(s16_to_float(s16_[i]));
    return n;
  }

 private:
  FILE* spool_;
  std::vector<int16_t> s16_;
};

}  // namespace

AudioFileSource::AudioFileSource(std::string path)
    : path_(std::move(path)), name_(path_ == "-" ? std::string("standard input") : path_) {}

AudioFileSource::~AudioFileSource() = default;

std::unique_ptr<SamplePass> AudioFileSource::open() {
  const bool first = passes_++ == 0;
  if (path_ != "-") return std::make_unique<DecoderPass>(path_, nullptr);
  if (first) {
    spool_ = std::make_unique<Spool>();
    spool_->file.reset(std::tmpfile());
    if (!spool_->file) {
      throw Error(std::string("cannot create a temporary file to hold standard input (") + std::strerror(errno) +
                  "): check that $TMPDIR or /tmp is writable");
    }
    return std::make_unique<DecoderPass>(path_, spool_.get());
  }
  if (!spool_ || !spool_->complete)
    throw Error("standard input can be read again only after a first pass read it to the end");
  return std::make_unique<SpoolPass>(spool_->file.get());
}

namespace {

class MemoryPass : public SamplePass {
 public:
  explicit MemoryPass(std::span<const float> samples) : samples_(samples) {}
  size_t read(std::vector<float>& out, size_t max_samples) override {
    const size_t n = std::min(max_samples, samples_.size() - at_);
    out.insert(out.end(), samples_.begin() + static_cast<long>(at_), samples_.begin() + static_cast<long>(at_ + n));
    at_ += n;
    return n;
  }

 private:
  std::span<const float> samples_;
  size_t at_ = 0;
};

}  // namespace

std::unique_ptr<SamplePass> MemorySampleSource::open() { return std::make_unique<MemoryPass>(samples_); }

}  // namespace auris
