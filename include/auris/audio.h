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

}  // namespace auris
