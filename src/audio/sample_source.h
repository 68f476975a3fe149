// A recording's 16 kHz mono samples, read from the start as many times as a consumer needs (the
// log-mel's two passes, the VAD's pass before them), each time pulled a block at a time so a long
// recording is never held whole. A file is decoded again for each pass; standard input, which can
// be read only once, is copied (as s16) to an unlinked temporary file during the first pass and
// replayed from it.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace auris {

// One reading of the samples, from the first.
class SamplePass {
 public:
  virtual ~SamplePass() = default;
  // Appends up to max_samples samples to out and returns how many; 0 only at the end.
  virtual size_t read(std::vector<float>& out, size_t max_samples) = 0;
};

class SampleSource {
 public:
  virtual ~SampleSource() = default;
  // A new pass from the first sample. The source must outlive its passes.
  virtual std::unique_ptr<SamplePass> open() = 0;
  // What to call the recording in messages: "standard input" or the path.
  virtual const std::string& name() const = 0;
};

// An audio file in any format FFmpeg reads, or "-" for standard input: every pass gives the samples
// load_audio gives. Errors are load_audio's (auris::Error), thrown by open() and read().
class AudioFileSource : public SampleSource {
 public:
  explicit AudioFileSource(std::string path);
  ~AudioFileSource() override;

  // Standard input's second and later passes need the first to have been read to the end.
  std::unique_ptr<SamplePass> open() override;
  const std::string& name() const override { return name_; }

  struct Spool;  // standard input's copy (sample_source.cc)

 private:
  std::string path_, name_;
  std::unique_ptr<Spool> spool_;  // standard input's samples, once the first pass began
  int passes_ = 0;
};

// Samples already in memory (which must outlive the source and its passes).
class MemorySampleSource : public SampleSource {
 public:
  explicit MemorySampleSource(std::span<const float> samples, std::string name = "the audio buffer")
      : samples_(samples), name_(std::move(name)) {}
  std::unique_ptr<SamplePass> open() override;
  const std::string& name() const override { return name_; }

 private:
  std::span<const float> samples_;
  std::string name_;
};

}  // namespace auris
