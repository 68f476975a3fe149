#include "transcribe/speech_only_audio.h"

#include <algorithm>

#include "auris/error.h"

namespace auris {
namespace {

constexpr size_t kReadBlock = 1 << 14;  // samples pulled from the recording at a time (about 1 s)

SpeechDetection finish(SpeechProbabilityStream& stream, const SpeechTimestampsOptions& options) {
  SpeechDetection d;
  d.num_samples = stream.samples();
  const std::vector<float> probabilities = stream.finish(vad_window_count(d.num_samples, options));
  d.spans = speech_timestamps(probabilities, d.num_samples, options);
  return d;
}

// The samples of one pass over the recording that fall inside the spans.
class SpeechOnlyPass : public SamplePass {
 public:
  SpeechOnlyPass(std::unique_ptr<SamplePass> whole, std::span<const SpeechSpan> spans, const std::string& name)
      : whole_(std::move(whole)), spans_(spans), name_(name) {}

  size_t read(std::vector<float>& out, size_t max_samples) override {
    size_t given = 0;
    while (given < max_samples && span_ < spans_.size()) {
      const SpeechSpan& s = spans_[span_];
      const int64_t at = buffer_start_ + static_cast<int64_t>(used_);  // the next sample of the recording
      const size_t left = buffer_.size() - used_;
      if (at >= s.end) {
        ++span_;
      } else if (left == 0) {
        refill();
      } else if (at < s.start) {  // silence: skip it
        used_ += static_cast<size_t>(std::min<int64_t>(s.start - at, static_cast<int64_t>(left)));
      } else {
        const size_t take = std::min({static_cast<size_t>(s.end - at), left, max_samples - given});
        out.insert(out.end(), buffer_.begin() + static_cast<long>(used_), buffer_.begin() + static_cast<long>(used_ + take));
        used_ += take;
        given += take;
      }
    }
    return given;
  }

 private:
  void refill() {
    buffer_start_ += static_cast<int64_t>(buffer_.size());
    buffer_.clear();
    used_ = 0;
    if (whole_->read(buffer_, kReadBlock) == 0) {
      throw Error(name_ + " changed while it was being read (its audio ended at sample " + std::to_string(buffer_start_) +
                  ", before the speech found in it): do not modify the file during transcription");
    }
  }

  std::unique_ptr<SamplePass> whole_;
  std::span<const SpeechSpan> spans_;
  const std::string& name_;
  size_t span_ = 0;             // the span being read
  std::vector<float> buffer_;   // recording samples [buffer_start_, buffer_start_ + size)
  int64_t buffer_start_ = 0;
  size_t used_ = 0;             // of buffer_
};

}  // namespace

int64_t SpeechDetection::speech_samples() const {
  int64_t total = 0;
  for (const SpeechSpan& s : spans) total += s.end - s.start;
  return total;
}

SpeechDetection detect_speech(const SileroVad& vad, SamplePass& pass, const SpeechTimestampsOptions& options) {
  SpeechProbabilityStream stream(vad);
  std::vector<float> block;
  while (true) {
    block.clear();
    if (pass.read(block, kReadBlock) == 0) break;
    stream.push(block);
  }
  return finish(stream, options);
}

SpeechDetection detect_speech(const SileroVad& vad, std::span<const float> samples, const SpeechTimestampsOptions& options) {
  SpeechProbabilityStream stream(vad);
  stream.push(samples);
  return finish(stream, options);
}

SpeechOnlyAudio::SpeechOnlyAudio(std::unique_ptr<SampleSource> recording, std::vector<SpeechSpan> spans)
    : recording_(std::move(recording)), spans_(std::move(spans)) {
  int64_t previous_end = 0;
  for (const SpeechSpan& s : spans_) {
    if (s.start < previous_end || s.end < s.start)
      throw Error("SpeechOnlyAudio: speech spans must be in order and not overlap; [" + std::to_string(s.start) + ", " +
                  std::to_string(s.end) + ") follows a span ending at " + std::to_string(previous_end));
    previous_end = s.end;
  }
}

std::unique_ptr<SamplePass> SpeechOnlyAudio::open() {
  return std::make_unique<SpeechOnlyPass>(recording_->open(), spans_, recording_->name());
}

}  // namespace auris
