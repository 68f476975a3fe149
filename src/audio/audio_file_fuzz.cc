// A libFuzzer target over the audio files users transcribe, run by scripts/fuzz.sh (ctest replays the
// test data's audio through tests/fuzz/replay.cc): the input is written to a file and read by
// load_audio (FFmpeg's demuxers and decoders, then auris's resampling to 16 kHz mono). It must give
// samples that are finite and within [-1, 1], or throw auris::Error: any other exception, a crash or
// a sanitizer report is a finding. FFmpeg itself is fuzzed by OSS-Fuzz and is not instrumented
// here; what is searched is how auris handles what it returns (no stream, no samples, odd rates and
// layouts, errors mid-stream).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "auris/audio.h"
#include "auris/error.h"
#include "fuzz/fuzz_support.h"

namespace {

std::string input_path() { return auris::fuzz::private_path("audio"); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = [] {
    std::atexit([] { std::filesystem::remove(input_path()); });
    return input_path();
  }();
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    for (const float x : auris::load_audio(path))
      if (!std::isfinite(x) || std::fabs(x) > 1.0f) {
        std::fprintf(stderr, "load_audio returned a sample of %g\n", x);
        std::abort();
      }
  } catch (const auris::Error&) {
    // A clear refusal: what a hostile file must get.
  }
  return 0;
}
