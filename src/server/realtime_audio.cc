#include "server/realtime_audio.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/base64.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>
}

#include "audio/ffmpeg_handles.h"
#include "auris/error.h"

namespace auris::server {
namespace {

constexpr int kEngineRate = 16000;

}  // namespace

struct RealtimeAudioDecoder::Codec {
  std::unique_ptr<SwrContext, SwrFreer> resampler;  // 16-bit mono at the format's rate -> 16-kHz float
  std::unique_ptr<AVCodecContext, CodecFreer> g711;  // G.711 bytes -> 16-bit samples
  std::unique_ptr<AVPacket, PacketFreer> packet;
  std::unique_ptr<AVFrame, FrameFreer> frame;
  bool odd_byte = false;  // PCM: a chunk ended mid-sample; its first byte is kept here
  unsigned char kept = 0;

  // Resamples 16-bit samples, appending to out.
  void resample(const int16_t* samples, int count, std::vector<float>& out) {
    const int capacity = swr_get_out_samples(resampler.get(), count);
    if (capacity <= 0) return;
    const size_t at = out.size();
    out.resize(at + static_cast<size_t>(capacity));
    uint8_t* destination = reinterpret_cast<uint8_t*>(out.data() + at);
    const uint8_t* source = reinterpret_cast<const uint8_t*>(samples);
    const int produced = swr_convert(resampler.get(), &destination, capacity, count > 0 ? &source : nullptr, count);
    if (produced < 0) throw Error("the audio could not be resampled to 16 kHz");
    out.resize(at + static_cast<size_t>(produced));
  }
};

RealtimeAudioDecoder::RealtimeAudioDecoder(RealtimeAudioFormat format) : format_(format), codec_(std::make_unique<Codec>()) {
  if (format_.encoding != RealtimeAudioFormat::Encoding::kPcm16) format_.rate = 8000;
  if (format_.rate < 8000 || format_.rate > 48000)
    throw Error("audio/pcm's rate must be 8000 to 48000 Hz (OpenAI's is 24000), got " + std::to_string(format_.rate));
  AVChannelLayout mono = AV_CHANNEL_LAYOUT_MONO;
  SwrContext* swr = nullptr;
  if (swr_alloc_set_opts2(&swr, &mono, AV_SAMPLE_FMT_FLT, kEngineRate, &mono, AV_SAMPLE_FMT_S16, format_.rate, 0, nullptr) < 0 ||
      swr_init(swr) < 0) {
    swr_free(&swr);
    throw Error("the audio resampler could not be set up");
  }
  codec_->resampler.reset(swr);
  if (format_.encoding == RealtimeAudioFormat::Encoding::kPcm16) return;
  const AVCodec* decoder =
      avcodec_find_decoder(format_.encoding == RealtimeAudioFormat::Encoding::kMuLaw ? AV_CODEC_ID_PCM_MULAW : AV_CODEC_ID_PCM_ALAW);
  codec_->g711.reset(decoder ? avcodec_alloc_context3(decoder) : nullptr);
  codec_->packet.reset(av_packet_alloc());
  codec_->frame.reset(av_frame_alloc());
  if (!codec_->g711 || !codec_->packet || !codec_->frame) throw Error("this FFmpeg has no G.711 decoder");
  codec_->g711->sample_rate = 8000;
  av_channel_layout_copy(&codec_->g711->ch_layout, &mono);
  if (avcodec_open2(codec_->g711.get(), decoder, nullptr) < 0) throw Error("the G.711 decoder could not be opened");
}

RealtimeAudioDecoder::~RealtimeAudioDecoder() = default;

std::vector<float> RealtimeAudioDecoder::decode_base64(std::string_view base64) {
  const std::string text(base64);  // av_base64_decode reads up to a NUL
  std::vector<unsigned char> bytes(AV_BASE64_DECODE_SIZE(text.size()) + 1);
  const int size = text.empty() ? 0 : av_base64_decode(bytes.data(), text.c_str(), static_cast<int>(bytes.size()));
  if (size < 0) throw Error("the audio is not valid base64");
  return decode(bytes.data(), static_cast<size_t>(size));
}

std::vector<float> RealtimeAudioDecoder::decode(const unsigned char* data, size_t size) {
  std::vector<float> out;
  Codec& c = *codec_;
  if (format_.encoding == RealtimeAudioFormat::Encoding::kPcm16) {
    std::vector<int16_t> samples;
    samples.reserve(size / 2 + 1);
    size_t at = 0;
    if (c.odd_byte && size > 0) {
      samples.push_back(static_cast<int16_t>(c.kept | (data[0] << 8)));
      c.odd_byte = false;
      at = 1;
    }
    for (; at + 1 < size; at += 2) samples.push_back(static_cast<int16_t>(data[at] | (data[at + 1] << 8)));
    if (at < size) {
      c.kept = data[at];
      c.odd_byte = true;
    }
    c.resample(samples.data(), static_cast<int>(samples.size()), out);
    return out;
  }
  if (size == 0) return out;
  c.packet->data = const_cast<uint8_t*>(data);
  c.packet->size = static_cast<int>(size);
  const int sent = avcodec_send_packet(c.g711.get(), c.packet.get());
  c.packet->data = nullptr;
  c.packet->size = 0;
  if (sent < 0) throw Error("the G.711 audio could not be decoded");
  while (avcodec_receive_frame(c.g711.get(), c.frame.get()) == 0) {
    c.resample(reinterpret_cast<const int16_t*>(c.frame->data[0]), c.frame->nb_samples, out);
    av_frame_unref(c.frame.get());
  }
  return out;
}

}  // namespace auris::server
