#include "audio/audio_stream.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavdevice/version_major.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/mem.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>
}

#include <dlfcn.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "audio/ffmpeg_handles.h"
#include "audio/mel.h"
#include "auris/error.h"
#include "util/out_of_memory.h"

namespace fs = std::filesystem;

namespace auris {
namespace {

// The sample rates taken as real: telephone speech is 8 kHz, and nothing records speech at under
// 1 kHz; the fastest audio interfaces record at 768 kHz (FFmpeg decodes DSD at 352.8 kHz).
constexpr int kLowestSampleRate = 1000;
constexpr int kHighestSampleRate = 768000;

// FFmpeg's capture devices (ALSA, PulseAudio, ...), registered on first use. libavdevice is opened
// then rather than linked: its dependencies (X11, SDL, PulseAudio, ...) cost every process about
// 60 ms of dynamic linking, whether or not it reads a microphone.
void register_capture_devices() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    const std::string name = "libavdevice.so." + std::to_string(LIBAVDEVICE_VERSION_MAJOR);
    void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_GLOBAL);
    void* entry = library ? dlsym(library, "avdevice_register_all") : nullptr;
    if (!entry) {
      const char* why = dlerror();
      failure = "input devices need FFmpeg's " + name + " (" + (why ? why : "not found") +
                "): install it (Debian: apt-get install libavdevice" + std::to_string(LIBAVDEVICE_VERSION_MAJOR) + ")";
      return;
    }
    reinterpret_cast<void (*)()>(entry)();
  });
  if (!failure.empty()) throw Error(failure);
}

// FFmpeg reports problems through av_log, by default straight to stderr. We keep the last error
// message of the calling thread instead, to put it in the auris::Error we throw.
thread_local std::string last_ffmpeg_message;

void capture_ffmpeg_log(void* avcl, int level, const char* fmt, va_list args) {
  if (level > AV_LOG_ERROR) return;
  char line[512];
  int print_prefix = 0;  // no "[mp3 @ 0x...]": the message names the file already
  av_log_format_line2(avcl, level, fmt, args, line, sizeof line, &print_prefix);
  std::string message(line);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  if (!message.empty()) last_ffmpeg_message = message;
}

// The most FFmpeg may allocate in one block. Its readers allocate what a file's headers declare before
// reading it: a 60-byte WAV whose metadata chunk says 2 GB made it zero 2 GB (its limit is INT_MAX).
// Audio needs less: a 30-hour 48-kHz AAC file's index is about 120 MB (24 bytes a frame), cover art a few MB.
constexpr size_t kLargestFfmpegAllocation = size_t{128} << 20;

// FFmpeg's process-wide settings, made once, before the first file is opened.
void configure_ffmpeg() {
  static std::once_flag once;
  std::call_once(once, [] {
    av_log_set_callback(capture_ffmpeg_log);
    av_max_alloc(kLargestFfmpegAllocation);
  });
}

std::string av_error_text(int code) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, buf, sizeof buf);
  return buf;
}

std::string detail(int code) {
  std::string text = av_error_text(code);
  if (!last_ffmpeg_message.empty()) text += " (" + last_ffmpeg_message + ")";
  return text;
}

// Converts decoded frames to 16 kHz mono s16 exactly as the ffmpeg CLI does for
// `-f s16le -ac 1 -ar 16000` (its auto-inserted aresample filter is one SwrContext with default
// options); AudioStream::read divides by 32768 as openai's load_audio does. With two output
// channels, stereo interleaved (`-ac 2`), as PyAV's resampler gives faster-whisper's split_stereo.
class Resampler {
 public:
  explicit Resampler(std::vector<int16_t>& out) : out_(out) {}
  // 1 (mono) or 2 (stereo), before the first frame.
  void set_output_channels(int channels) { out_channels_ = channels; }

  void push(const AVFrame& frame) {
    AVChannelLayout layout{};
    if (frame.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC) {
      // As the CLI does, guess the usual layout for the channel count (e.g. mono for 1 channel).
      av_channel_layout_default(&layout, frame.ch_layout.nb_channels);
    } else if (av_channel_layout_copy(&layout, &frame.ch_layout) < 0) {
      throw OutOfMemory("copying a channel layout");
    }
    if (!swr_ || frame.format != in_format_ || frame.sample_rate != in_rate_ ||
        av_channel_layout_compare(&layout, &in_layout_) != 0) {
      // The stream changed format mid-way (or this is the first frame): drain and start afresh.
      flush();
      configure(layout, static_cast<AVSampleFormat>(frame.format), frame.sample_rate);
    }
    av_channel_layout_uninit(&layout);
    convert(const_cast<const uint8_t**>(frame.extended_data), frame.nb_samples);
  }

  // Emits what the resampler still holds at the end of the stream.
  void flush() {
    if (!swr_) return;
    while (convert(nullptr, 0) > 0) {
    }
  }

  ~Resampler() { av_channel_layout_uninit(&in_layout_); }

 private:
  void configure(const AVChannelLayout& layout, AVSampleFormat format, int rate) {
    if (rate <= 0 || layout.nb_channels <= 0) {
      throw Error("the audio stream has an invalid sample rate or channel count: the file is damaged");
    }
    // Speech is never recorded this slowly; such a rate is a damaged header, and resampling it to
    // 16 kHz would turn seconds of data into hours of audio.
    if (rate < kLowestSampleRate) {
      throw Error("the audio says its sample rate is " + std::to_string(rate) + " Hz, below the " +
                  std::to_string(kLowestSampleRate) + " Hz of any speech recording: the file's header is damaged");
    }
    // Nor this fast: a 92-byte WAV claiming 1 GHz made the resampler take 13 s and 1.3 GB to set up.
    if (rate > kHighestSampleRate) {
      throw Error("the audio says its sample rate is " + std::to_string(rate) + " Hz, above the " +
                  std::to_string(kHighestSampleRate) + " Hz of any audio recording: the file's header is damaged");
    }
    const AVChannelLayout mono = AV_CHANNEL_LAYOUT_MONO, stereo = AV_CHANNEL_LAYOUT_STEREO;
    AVChannelLayout out_layout = out_channels_ == 2 ? stereo : mono;
    SwrContext* swr = nullptr;
    // FFmpeg 5.1 declares the layouts non-const; it only reads them.
    int rc = swr_alloc_set_opts2(&swr, &out_layout, AV_SAMPLE_FMT_S16, kSampleRate,
                                 const_cast<AVChannelLayout*>(&layout), format, rate, 0, nullptr);
    swr_.reset(swr);
    // A channel count with no usual layout (9, 12, 32, ...: a multi-microphone recorder's) is one the
    // ffmpeg CLI, and so openai's load_audio, refuses to downmix ("not enough information"): here
    // every channel counts alike, in each channel out. The counts the CLI downmixes keep its weights.
    if (rc >= 0 && layout.order == AV_CHANNEL_ORDER_UNSPEC && layout.nb_channels > 1) {
      const std::vector<double> average(static_cast<size_t>(out_channels_) * layout.nb_channels, 1.0 / layout.nb_channels);
      rc = swr_set_matrix(swr, average.data(), layout.nb_channels);
    }
    if (rc < 0 || (rc = swr_init(swr)) < 0) {
      throw Error("cannot convert this audio (" + std::to_string(layout.nb_channels) + " channels at " +
                  std::to_string(rate) + " Hz) to 16 kHz " + (out_channels_ == 2 ? "stereo: " : "mono: ") + detail(rc));
    }
    av_channel_layout_uninit(&in_layout_);
    if (av_channel_layout_copy(&in_layout_, &layout) < 0) throw OutOfMemory("copying a channel layout");
    in_format_ = format;
    in_rate_ = rate;
  }

  int convert(const uint8_t** in, int in_samples) {
    const int capacity = swr_get_out_samples(swr_.get(), in_samples) + 16;  // per channel
    buffer_.resize(static_cast<size_t>(capacity) * out_channels_);
    uint8_t* out = reinterpret_cast<uint8_t*>(buffer_.data());
    const int produced = swr_convert(swr_.get(), &out, capacity, in, in_samples);
    if (produced < 0) throw Error("resampling the audio to 16 kHz failed: " + detail(produced));
    out_.insert(out_.end(), buffer_.begin(), buffer_.begin() + static_cast<ptrdiff_t>(produced) * out_channels_);
    return produced;
  }

  std::vector<int16_t>& out_;
  int out_channels_ = 1;
  std::unique_ptr<SwrContext, SwrFreer> swr_;
  AVChannelLayout in_layout_{};
  int in_format_ = -1;
  int in_rate_ = 0;
  std::vector<int16_t> buffer_;
};

void check_path(const std::string& path) {
  if (path.empty()) throw Error("no audio file given: pass a file path, or - to read standard input");
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) throw Error("audio file not found: " + path + " (check the path)");
  if (fs::is_directory(status)) throw Error(path + " is a directory, not an audio file: pass a file inside it");
  if (fs::is_regular_file(status) && fs::file_size(path, ec) == 0 && !ec) {
    throw Error("audio file " + path + " is empty (0 bytes): it holds no audio to transcribe");
  }
}

}  // namespace

struct AudioStream::Impl {
  std::string name;
  std::unique_ptr<AVFormatContext, FormatCloser> format;
  std::unique_ptr<AVCodecContext, CodecFreer> decoder;
  std::unique_ptr<AVPacket, PacketFreer> packet;
  std::unique_ptr<AVFrame, FrameFreer> frame;
  int stream_index = -1;
  // Resampled samples not yet handed out: at most what one packet decodes to.
  std::vector<int16_t> pending;
  size_t pending_pos = 0;
  Resampler resampler{pending};
  bool finished = false;  // the decoder and the resampler are drained
  int read_error = 0;
  uint64_t samples_out = 0;

  void open(const std::string& path, const AudioInput& input);
  void drain_frames();
  void decode_next_packet();
  size_t take(size_t max_samples, std::vector<int16_t>* s16, std::vector<float>* f32);
};

void AudioStream::Impl::open(const std::string& path, const AudioInput& input) {
  configure_ffmpeg();
  last_ffmpeg_message.clear();
  resampler.set_output_channels(input.stereo ? 2 : 1);
  const bool from_stdin = path == "-";
  const bool device = !input.format.empty();
  const bool network = !device && path.find("://") != std::string::npos;
  if (!from_stdin && !device && !network) check_path(path);
  name = from_stdin ? std::string("standard input") : device ? input.format + " device " + path : path;
  // "pipe:0" reads file descriptor 0; "file:" stops names with a colon being taken for protocols.
  const std::string url = from_stdin ? std::string("pipe:0") : (device || network) ? path : "file:" + path;

  const AVInputFormat* format_wanted = nullptr;
  if (device) {
    register_capture_devices();
    format_wanted = av_find_input_format(input.format.c_str());
    if (!format_wanted)
      throw Error("FFmpeg has no input format or device \"" + input.format +
                  "\": try alsa or pulse for a microphone (`ffmpeg -devices` lists them)");
  }
  AVFormatContext* raw_format = avformat_alloc_context();
  if (!raw_format) throw OutOfMemory("opening " + name);
  if (input.stop) {
    raw_format->interrupt_callback.callback = [](void* stop) -> int {
      return static_cast<const std::atomic<bool>*>(stop)->load() ? 1 : 0;
    };
    raw_format->interrupt_callback.opaque = const_cast<std::atomic<bool>*>(input.stop);
  }
  AVDictionary* open_options = nullptr;
  if (network) {
    const long long microseconds = static_cast<long long>(input.network_timeout_seconds * 1e6);
    av_dict_set_int(&open_options, "rw_timeout", microseconds, 0);
    av_dict_set_int(&open_options, "timeout", microseconds, 0);  // rtsp's name for it
  }
  int rc = avformat_open_input(&raw_format, url.c_str(), format_wanted, &open_options);
  av_dict_free(&open_options);
  if (rc < 0) {
    if (device)
      throw Error("cannot open the " + name + ": " + detail(rc) +
                  ". Check the device name (`arecord -L` lists ALSA's, `pactl list sources short` PulseAudio's)");
    if (network)
      throw Error("cannot open the stream " + name + ": " + detail(rc) + ". Check the URL and that the server is reachable.");
    if (from_stdin)
      throw Error("cannot read standard input as audio: " + detail(rc) +
                  ". Is it empty, or not audio? Pipe in a file in a format FFmpeg reads");
    throw Error("cannot read " + name + " as audio: " + detail(rc) +
                ". Is it an audio or video file in a format FFmpeg supports?");
  }
  format.reset(raw_format);
  if ((rc = avformat_find_stream_info(format.get(), nullptr)) < 0) {
    throw Error("cannot read the streams of " + name + ": " + detail(rc) + ". The file may be damaged.");
  }
  const AVCodec* codec = nullptr;
  stream_index = av_find_best_stream(format.get(), AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0);
  if (stream_index == AVERROR_STREAM_NOT_FOUND) {
    throw Error(name + " has no audio stream: give a file that contains sound");
  }
  if (stream_index < 0 || !codec) {
    const AVStream* first_audio = nullptr;
    for (unsigned i = 0; i < format->nb_streams && !first_audio; ++i) {
      if (format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) first_audio = format->streams[i];
    }
    const char* codec_name = first_audio ? avcodec_get_name(first_audio->codecpar->codec_id) : "unknown";
    throw Error("no decoder for the audio of " + name + " (codec " + codec_name +
                "): convert it to WAV or FLAC first");
  }
  AVStream* stream = format->streams[stream_index];
  // Other streams (video, subtitles) are not read into packets we would only throw away.
  for (unsigned i = 0; i < format->nb_streams; ++i) {
    if (static_cast<int>(i) != stream_index) format->streams[i]->discard = AVDISCARD_ALL;
  }

  decoder.reset(avcodec_alloc_context3(codec));
  if (!decoder) throw OutOfMemory("creating an audio decoder");
  if ((rc = avcodec_parameters_to_context(decoder.get(), stream->codecpar)) < 0 ||
      (rc = avcodec_open2(decoder.get(), codec, nullptr)) < 0) {
    throw Error("cannot open the " + std::string(codec->name) + " decoder for " + name + ": " + detail(rc));
  }
  packet.reset(av_packet_alloc());
  frame.reset(av_frame_alloc());
  if (!packet || !frame) throw OutOfMemory("decoding audio");
}

void AudioStream::Impl::drain_frames() {
  while (true) {
    const int got = avcodec_receive_frame(decoder.get(), frame.get());
    if (got == AVERROR(EAGAIN) || got == AVERROR_EOF) return;
    if (got < 0) return;  // a damaged frame: skip it as the ffmpeg CLI does
    if (frame->nb_samples > 0) resampler.push(*frame);
    av_frame_unref(frame.get());
  }
}

// Reads one packet and decodes it into `pending`; at the end of the input, drains the decoder and
// the resampler and marks the stream finished.
void AudioStream::Impl::decode_next_packet() {
  const int rc = av_read_frame(format.get(), packet.get());
  if (rc < 0) {
    if (rc != AVERROR_EOF) read_error = rc;  // truncated or unreadable: keep what decoded so far
    avcodec_send_packet(decoder.get(), nullptr);  // end of stream: the decoder gives up what it holds
    drain_frames();
    resampler.flush();
    finished = true;
    return;
  }
  if (packet->stream_index == stream_index) {
    // Damaged packets (AVERROR_INVALIDDATA) are skipped, as the ffmpeg CLI skips them.
    // A full decoder (EAGAIN) takes the packet once its frames are out; bounded so it cannot spin.
    for (int tries = 0; tries < 64 && avcodec_send_packet(decoder.get(), packet.get()) == AVERROR(EAGAIN);
         ++tries) {
      drain_frames();
    }
    drain_frames();
  }
  av_packet_unref(packet.get());
}

size_t AudioStream::Impl::take(size_t max_samples, std::vector<int16_t>* s16, std::vector<float>* f32) {
  if (max_samples == 0) return 0;
  while (pending_pos == pending.size() && !finished) {
    pending.clear();
    pending_pos = 0;
    decode_next_packet();
  }
  const size_t n = std::min(max_samples, pending.size() - pending_pos);
  if (n == 0) {
    if (samples_out == 0) {
      std::string why = read_error ? "reading stopped with " + detail(read_error)
                                   : std::string("its audio stream decoded to nothing") +
                                         (last_ffmpeg_message.empty() ? "" : " (" + last_ffmpeg_message + ")");
      throw Error("no audio could be decoded from " + name + ": " + why +
                  ". The file may be truncated, damaged or not audio.");
    }
    return 0;
  }
  const int16_t* begin = pending.data() + pending_pos;
  if (s16) s16->insert(s16->end(), begin, begin + n);
  if (f32) {
    for (size_t i = 0; i < n; ++i) f32->push_back(s16_to_float(begin[i]));
  }
  pending_pos += n;
  samples_out += n;
  return n;
}

AudioStream::AudioStream(const std::string& path, const AudioInput& input) : impl_(std::make_unique<Impl>()) {
  impl_->open(path, input);
}

AudioStream::~AudioStream() = default;

size_t AudioStream::read(std::vector<float>& out, size_t max_samples) {
  return impl_->take(max_samples, nullptr, &out);
}

size_t AudioStream::read_s16(std::vector<int16_t>& out, size_t max_samples) {
  return impl_->take(max_samples, &out, nullptr);
}

const std::string& AudioStream::name() const { return impl_->name; }

}  // namespace auris
