// The one exception type auris throws across its API: every failure a user can cause (a bad model
// file, bad audio, a bad option) ends here with a message that says what went wrong and what to do.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

namespace auris {

struct Transcript;  // auris/transcribe.h

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a TranscribeOptions callback (on_segment, on_progress) throws to stop a transcription: it
// leaves transcribe() and transcribe_file() as thrown, before the next window is decoded, and the
// Transcriber stays usable. An Error, so code that catches Error to report failures still does.
class Cancelled : public Error {
 public:
  Cancelled() : Error("the transcription was cancelled") {}
  // Filled by the Transcriber on the way out: what was transcribed before the stop (the segments
  // decided so far, on the audio's timeline, their text and the language), so that an interrupted
  // run keeps its work. Null where the transcription stopped before its first window.
  std::shared_ptr<const Transcript> partial;
};

}  // namespace auris
