#include "audio/duration_limit.h"

#include <cmath>

#include "auris/audio.h"
#include "util/number_text.h"

namespace auris {
namespace {

class LimitedPass : public SamplePass {
 public:
  LimitedPass(std::unique_ptr<SamplePass> pass, std::string name, double max_seconds, int64_t max_samples)
      : pass_(std::move(pass)), name_(std::move(name)), max_seconds_(max_seconds), max_samples_(max_samples) {}

  size_t read(std::vector<float>& out, size_t max_samples) override {
    const size_t n = pass_->read(out, max_samples);
    read_ += static_cast<int64_t>(n);
    if (read_ > max_samples_)
      throw AudioTooLong(name_ + " is longer than " + number_text(max_seconds_ / 60) +
                         " minutes, the longest this server takes: send a shorter recording, or cut it into parts");
    return n;
  }

 private:
  std::unique_ptr<SamplePass> pass_;
  std::string name_;
  double max_seconds_;
  int64_t max_samples_;
  int64_t read_ = 0;
};

}  // namespace

DurationLimitedSource::DurationLimitedSource(std::unique_ptr<SampleSource> source, double max_seconds)
    : source_(std::move(source)),
      max_seconds_(max_seconds),
      max_samples_(static_cast<int64_t>(std::ceil(max_seconds * kSampleRate))) {}

std::unique_ptr<SamplePass> DurationLimitedSource::open() {
  return std::make_unique<LimitedPass>(source_->open(), source_->name(), max_seconds_, max_samples_);
}

}  // namespace auris
