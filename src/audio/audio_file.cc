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

StereoAudio load_stereo_audio(const std::string& path) {
  AudioInput input;
  input.stereo = true;
  AudioStream stream(path, input);
  std::vector<float> interleaved;
  constexpr size_t kBlock = 1 << 16;  // even: whole pairs
  StereoAudio audio;
  while (stream.read(interleaved, kBlock) > 0) {
    for (size_t i = 0; i + 1 < interleaved.size(); i += 2) {
      audio.left.push_back(interleaved[i]);
      audio.right.push_back(interleaved[i + 1]);
    }
    interleaved.clear();
  }
  return audio;
}

}  // namespace auris
