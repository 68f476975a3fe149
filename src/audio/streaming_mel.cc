#include "audio/streaming_mel.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "audio/sample_source.h"
#include "auris/error.h"

namespace auris {
namespace {

constexpr int kPad = kNFft / 2;              // center=True reflect padding on each side
constexpr size_t kReadBlock = 1 << 14;       // samples decoded per pull (about 1 s)
constexpr size_t kCompactAfter = 1 << 16;    // consumed samples kept before the buffer is shifted

// The unscaled log-mel frames of log_mel_spectrogram(audio, n_mels, padding = kChunkSamples), one
// at a time, from a sliding buffer of the padded signal: kPad reflected samples, the audio,
// kChunkSamples zeros, kPad more (the right reflection lies wholly in the zeros).
class FrameStream {
 public:
  FrameStream(SamplePass& source, int n_mels) : source_(source), frame_(n_mels) {}

  // Computes the next frame into out[0..n_mels) (or skips it when out is null) and raises log_max;
  // false when every frame has been given.
  bool next(float* out, float& log_max) {
    const int64_t start = next_frame_ * kHopLength;  // in padded-signal samples
    if (!fill_to(start + kNFft)) return false;
    if (out) frame_.compute(buffer_.data() + (start - base_), out, 1, log_max);
    ++next_frame_;
    const int64_t consumed = (next_frame_ * kHopLength) - base_;
    if (consumed > static_cast<int64_t>(kCompactAfter)) {
      buffer_.erase(buffer_.begin(), buffer_.begin() + consumed);
      base_ += consumed;
    }
    return true;
  }

  // Decoded audio samples; the total once next() has returned false.
  int64_t audio_samples() const { return audio_samples_; }

 private:
  // Makes the padded signal available up to index `end`; false when frame next_frame_ does not exist.
  bool fill_to(int64_t end) {
    if (!started_) start();
    while (base_ + static_cast<int64_t>(buffer_.size()) < end && !audio_ended_) append_audio();
    if (audio_ended_) {
      // torch.stft(center=True) gives 1 + n / hop frames of the n-sample signal; Whisper drops the last.
      const int64_t total_frames = (audio_samples_ + kChunkSamples) / kHopLength;
      if (next_frame_ >= total_frames) return false;
      const int64_t have = base_ + static_cast<int64_t>(buffer_.size());
      if (have < end) buffer_.resize(buffer_.size() + static_cast<size_t>(end - have), 0.0f);
    }
    return true;
  }

  // The left reflection needs audio samples 1..kPad (zeros past the end of shorter audio).
  void start() {
    started_ = true;
    std::vector<float> head;
    while (head.size() <= static_cast<size_t>(kPad) && !audio_ended_) {
      if (source_.read(head, kReadBlock) == 0) audio_ended_ = true;
    }
    for (int j = 0; j < kPad; ++j) {
      const size_t i = static_cast<size_t>(kPad - j);
      buffer_.push_back(i < head.size() ? head[i] : 0.0f);
    }
    buffer_.insert(buffer_.end(), head.begin(), head.end());
    audio_samples_ = static_cast<int64_t>(head.size());
  }

  void append_audio() {
    const size_t n = source_.read(buffer_, kReadBlock);
    if (n == 0) audio_ended_ = true;
    audio_samples_ += static_cast<int64_t>(n);
  }

  SamplePass& source_;
  LogMelFrame frame_;
  std::vector<float> buffer_;  // padded signal from index base_ on
  int64_t base_ = 0;
  int64_t next_frame_ = 0;
  int64_t audio_samples_ = 0;
  bool started_ = false;
  bool audio_ended_ = false;
};

}  // namespace

struct StreamingMel::Impl {
  std::unique_ptr<SampleSource> audio;  // released once every frame is kept
  std::string name;
  int n_mels = 0;
  size_t keep_bytes = 0;
  int64_t num_samples = 0;
  int64_t total_frames = 0;
  int content_frames = 0;
  float log_max = -std::numeric_limits<float>::infinity();
  // Every frame of the first pass, scaled ([frame][mel]), when they fit in keep_bytes; else empty.
  std::vector<float> kept;

  // Second pass: frames [produced - kChunkFrames, produced) in a ring, slot = frame % kChunkFrames.
  std::unique_ptr<SamplePass> source;
  std::optional<FrameStream> frames;
  std::vector<float> ring;
  int64_t produced = 0;
  int last_offset = 0;

  void first_pass();
  void produce(int64_t end, int offset);
  void rewind() {
    frames.reset();
    source.reset();
    produced = 0;
  }
  [[noreturn]] void changed() const {
    throw Error(name + " changed while it was being read (its audio ended early on the second pass): "
                       "do not modify the file during transcription");
  }
};

void StreamingMel::Impl::first_pass() {
  const std::unique_ptr<SamplePass> pass = audio->open();
  FrameStream stream(*pass, n_mels);
  std::vector<float> scratch(static_cast<size_t>(n_mels));
  const size_t keep_frames = keep_bytes / (static_cast<size_t>(n_mels) * sizeof(float));
  bool keeping = keep_frames > 0;
  int64_t frames = 0;
  while (true) {
    const bool into_kept = keeping && static_cast<size_t>(frames) < keep_frames;
    if (into_kept) kept.resize(kept.size() + n_mels);
    if (!stream.next(into_kept ? kept.data() + kept.size() - n_mels : scratch.data(), log_max)) {
      if (into_kept) kept.resize(kept.size() - n_mels);  // the frame that did not come
      break;
    }
    ++frames;
    if (keeping && !into_kept) {  // one frame too many to keep: the windows will decode the file again
      keeping = false;
      std::vector<float>().swap(kept);
    }
  }
  if (frames > std::numeric_limits<int>::max()) {
    throw Error("audio too long for one log-mel spectrogram (" + std::to_string(stream.audio_samples()) +
                " samples): split it into shorter pieces");
  }
  total_frames = frames;
  num_samples = stream.audio_samples();
  content_frames = static_cast<int>(num_samples / kHopLength);
  if (keeping) {
    scale_log_mel(std::span<float>(kept), log_max);
    audio.reset();  // every frame is here (standard input's spool goes too)
  }
}

// Computes frames up to `end` into the ring, skipping those before `offset` that no window needs.
void StreamingMel::Impl::produce(int64_t end, int offset) {
  if (!frames) {
    source = audio->open();
    frames.emplace(*source, n_mels);
    ring.assign(static_cast<size_t>(kChunkFrames) * n_mels, 0.0f);
  }
  float unused_max = -std::numeric_limits<float>::infinity();
  for (; produced < end; ++produced) {
    if (produced < offset) {
      if (!frames->next(nullptr, unused_max)) changed();
      continue;
    }
    float* slot = ring.data() + static_cast<size_t>(produced % kChunkFrames) * n_mels;
    if (!frames->next(slot, unused_max)) changed();
    scale_log_mel(std::span<float>(slot, static_cast<size_t>(n_mels)), log_max);
  }
}

StreamingMel::StreamingMel(const std::string& path, int n_mels, size_t keep_bytes)
    : StreamingMel(std::make_unique<AudioFileSource>(path), n_mels, keep_bytes) {}

StreamingMel::StreamingMel(std::unique_ptr<SampleSource> audio, int n_mels, size_t keep_bytes)
    : impl_(std::make_unique<Impl>()) {
  impl_->n_mels = LogMelFrame(n_mels).n_mels();  // rejects unsupported n_mels before any decoding
  impl_->name = audio->name();
  impl_->audio = std::move(audio);
  impl_->keep_bytes = keep_bytes;
  impl_->first_pass();
}

StreamingMel::~StreamingMel() = default;

// An all-zero recording never lifts a mel bin above the log floor, log10(1e-10).
bool StreamingMel::silent() const { return impl_->log_max <= -10.0f; }

int StreamingMel::n_mels() const { return impl_->n_mels; }

int StreamingMel::content_frames() const { return impl_->content_frames; }

int64_t StreamingMel::num_samples() const { return impl_->num_samples; }

LogMel StreamingMel::window(int offset, int length) {
  Impl& s = *impl_;
  if (offset < 0 || length < 0) {
    throw Error("invalid mel window (offset " + std::to_string(offset) + ", length " + std::to_string(length) +
                "): both must be non-negative");
  }
  // Frames before the ring are gone: a window behind the last one reads the audio again from its start
  // (language detection over several windows looks ahead, then the transcription starts over).
  if (offset < s.last_offset && s.kept.empty()) s.rewind();
  s.last_offset = offset;
  LogMel window;
  window.n_mels = s.n_mels;
  window.n_frames = kChunkFrames;
  window.data.assign(static_cast<size_t>(s.n_mels) * kChunkFrames, 0.0f);
  const int64_t available = std::clamp<int64_t>(std::min<int64_t>(length, s.total_frames - offset), 0, kChunkFrames);
  if (available == 0) return window;
  if (!s.kept.empty()) {
    for (int64_t i = 0; i < available; ++i) {
      const float* frame = s.kept.data() + static_cast<size_t>(offset + i) * s.n_mels;
      for (int m = 0; m < s.n_mels; ++m) window.data[static_cast<size_t>(m) * kChunkFrames + i] = frame[m];
    }
    return window;
  }
  s.produce(offset + available, offset);
  // produced - kChunkFrames <= offset (the previous window started no later), so all are in the ring.
  for (int64_t i = 0; i < available; ++i) {
    const float* frame = s.ring.data() + static_cast<size_t>((offset + i) % kChunkFrames) * s.n_mels;
    for (int m = 0; m < s.n_mels; ++m) window.data[static_cast<size_t>(m) * kChunkFrames + i] = frame[m];
  }
  return window;
}

}  // namespace auris
