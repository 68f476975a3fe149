// A recording held to a longest duration, counted in the samples as they are decoded: a server's
// limit on an upload's length (`auris serve --max-audio-minutes`). The container's header is not
// trusted: it may be missing or lie, and a 100-MB Opus file holds some 37 hours.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "audio/sample_source.h"
#include "auris/error.h"

namespace auris {

// Thrown by a pass that reads past the limit.
class AudioTooLong : public Error {
 public:
  using Error::Error;
};

class DurationLimitedSource : public SampleSource {
 public:
  // max_seconds > 0, at 16 kHz.
  DurationLimitedSource(std::unique_ptr<SampleSource> source, double max_seconds);

  // Each pass reads the source's samples and throws AudioTooLong, naming the limit, once more than
  // the limit's have come.
  std::unique_ptr<SamplePass> open() override;
  const std::string& name() const override { return source_->name(); }

 private:
  std::unique_ptr<SampleSource> source_;
  double max_seconds_;
  int64_t max_samples_;
};

}  // namespace auris
