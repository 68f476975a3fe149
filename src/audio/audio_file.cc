#include "auris/audio.h"

#include "audio/audio_stream.h"

namespace auris {

std::vector<float> load_audio(const std::string& path) {
  AudioStream stream(path);
  std::vector<float> samples;
  constexpr size_t kBlock = 1 << 16;
  while (stream.read(samples, kBlock) > 0) {
  }
  return samples;
}

}  // namespace auris
