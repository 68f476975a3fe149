// The audio of a realtime session (OpenAI's `input_audio_buffer.append`): base64 chunks of 16-bit
// PCM (24 kHz in OpenAI's API; auris takes 8 to 48 kHz) or G.711 mu-law / A-law (8 kHz), turned
// into the engine's 16-kHz float samples. The decoding (libavcodec for G.711) and the resampling
// (libswresample) keep their state across chunks, so a chunk may end anywhere, even mid-sample.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace auris::server {

struct RealtimeAudioFormat {
  enum class Encoding { kPcm16, kMuLaw, kALaw };
  Encoding encoding = Encoding::kPcm16;
  int rate = 24000;  // the G.711 encodings are 8 kHz
  bool operator==(const RealtimeAudioFormat&) const = default;
};

class RealtimeAudioDecoder {
 public:
  // Throws auris::Error for a rate outside 8 to 48 kHz.
  explicit RealtimeAudioDecoder(RealtimeAudioFormat format);
  ~RealtimeAudioDecoder();
  RealtimeAudioDecoder(const RealtimeAudioDecoder&) = delete;
  RealtimeAudioDecoder& operator=(const RealtimeAudioDecoder&) = delete;

  // The 16-kHz samples of one base64 chunk. Throws auris::Error, decoding nothing, where the text
  // is not base64.
  std::vector<float> decode_base64(std::string_view base64);
  // The samples of raw bytes in the format.
  std::vector<float> decode(const unsigned char* data, size_t size);
  const RealtimeAudioFormat& format() const { return format_; }

 private:
  struct Codec;
  RealtimeAudioFormat format_;
  std::unique_ptr<Codec> codec_;
};

}  // namespace auris::server
