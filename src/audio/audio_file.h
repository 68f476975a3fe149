// Decoding whole audio files through the FFmpeg libraries (libavformat/libavcodec/libswresample),
// by reading an AudioStream (audio_stream.h) to the end:
// any container and codec FFmpeg knows, any rate and channel count, resampled to 16 kHz mono float.
#pragma once

#include <string>
#include <vector>

namespace auris {

// Reads the first audio stream of path ("-" = stdin) as 16 kHz mono samples in [-1, 1].
// Throws auris::Error for a missing file, no audio stream, or undecodable data.
std::vector<float> load_audio(const std::string& path);

}  // namespace auris
