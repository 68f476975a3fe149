// How much CPU Silero VAD takes: CPU seconds per hour of audio on one thread (the VAD runs before
// transcription on hours of audio), from repeated passes of SileroVad::speech_probabilities over a
// recording; the best of the repeats, whose CPU time is least disturbed by a busy machine.
// Usage: auris_vad_speed [VAD_FILE [AUDIO_FILE [REPEATS]]]
//   defaults (run from the repository's root; $AURIS_TEST_DATA replaces ../shared/data):
//   ../shared/data/vad/for-tests-silero-v6.2.0-ggml.bin, the 232-s longform clip, 5
#include <omp.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "auris/audio.h"
#include "auris/error.h"
#include "vad/silero_vad.h"

namespace {

double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  const char* data_env = std::getenv("AURIS_TEST_DATA");
  const std::string data = data_env != nullptr ? data_env : "../shared/data";
  const std::string vad_file = argc > 1 ? argv[1] : data + "/vad/for-tests-silero-v6.2.0-ggml.bin";
  const std::string audio_file = argc > 2 ? argv[2] : data + "/audio/longform/hifitts-dev-concat.flac";
  const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  try {
    omp_set_num_threads(1);
    const auris::SileroVad vad(vad_file);
    const std::vector<float> audio = auris::load_audio(audio_file);
    const double audio_s = static_cast<double>(audio.size()) / auris::SileroVad::kSampleRate;
    double best = 1e300;
    float checksum = 0;
    for (int i = 0; i < repeats; ++i) {
      const double start = cpu_seconds();
      const std::vector<float> p = vad.speech_probabilities(audio);
      best = std::min(best, cpu_seconds() - start);
      checksum += p.empty() ? 0.0f : p.back();
    }
    const double per_hour = best * 3600.0 / audio_s;
    std::printf("Silero VAD, 1 thread: %.3f CPU s for %.1f s of audio (best of %d): %.2f CPU s per audio hour, "
                "%.3f%% of real time (checksum %.4f)\n",
                best, audio_s, repeats, per_hour, 100.0 * per_hour / 3600.0, checksum);
    return 0;
  } catch (const auris::Error& e) {
    std::fprintf(stderr, "auris_vad_speed: %s\n", e.what());
    return 1;
  }
}
