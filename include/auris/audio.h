// Audio for transcription: Whisper hears 16 kHz mono samples in [-1, 1]. load_audio turns any file
// FFmpeg reads into that.
#pragma once

#include <string>
#include <vector>

namespace auris {

// The rate Transcriber::transcribe and StreamingTranscriber::push take their samples at.
inline constexpr int kSampleRate = 16000;

// Reads the first audio stream of path ("-" = stdin): any container and codec FFmpeg knows, any rate
// and channel count, resampled to 16 kHz mono (openai's load_audio: s16 samples divided by 32768).
// Throws auris::Error for a missing file, no audio stream, or undecodable data.
std::vector<float> load_audio(const std::string& path);

// The left and right channels of path's first audio stream at 16 kHz, as faster-whisper's
// decode_audio(split_stereo=True) gives them: the audio converted to stereo (a mono file's one
// channel in both), then split. For recordings with a speaker on each channel, such as phone calls.
struct StereoAudio {
  std::vector<float> left, right;
};
StereoAudio load_stereo_audio(const std::string& path);

}  // namespace auris
