// The C++ API from an installed auris: transcribe a file, print each segment; the same audio loaded
// by auris::load_audio and transcribed from memory must give the same text. Usage: cpp_api MODEL AUDIO
#include <auris/audio.h>
#include <auris/download.h>
#include <auris/error.h>
#include <auris/model.h>
#include <auris/transcribe.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL AUDIO\n", argv[0]);
    return 2;
  }
  try {
    auris::Transcriber transcriber(auris::Model::load(argv[1]));
    const auris::Transcript t = transcriber.transcribe_file(argv[2]);
    for (const auris::Segment& s : t.segments) std::printf("[%.2f-%.2f]%s\n", s.start, s.end, s.text.c_str());
    const std::vector<float> samples = auris::load_audio(argv[2]);
    if (transcriber.transcribe(samples, auris::kSampleRate).text != t.text) {
      std::fprintf(stderr, "the file and its samples gave different text\n");
      return 1;
    }
    std::printf("downloadable: %zu models, the smallest %s\n", auris::available_models().size(),
                auris::available_models().front().c_str());
    transcriber.transcribe_file("/nonexistent/speech.flac");
    std::fprintf(stderr, "a missing file gave no auris::Error\n");
    return 1;
  } catch (const auris::Error& e) {  // thrown inside libauris, caught here
    std::printf("error: %s\n", e.what());
    return 0;
  }
}
