// Live VAD keeps a closed utterance in the buffer as the next one's context, so a decode hears the
// utterance, the silence after it and the speech that resumed. Whisper sometimes places a word of
// its own in that silence ("axis." at probability 0.00 after "...the probable consequences."),
// where the VAD heard no speech.
#pragma once

#include "auris/transcribe.h"
#include "transcribe/silence_skipping.h"

namespace auris {

// Stream seconds: the closed utterance's last committed word ends at `from`; the VAD heard speech
// resume at `to` (its padding before the speech included).
struct SilentGap {
  double from = 0;
  double to = 0;

  // Whether a word is one Whisper made up in the silence: improbable (under openai's anomaly
  // threshold), its middle past `from` (not a committed word said again, timed a little
  // differently) and its end by `to` (not the resumed speech's first word, started early). A probable
  // word there is more likely speech that the alignment timed early.
  bool holds(const Word& word) const {
    return word.probability < kImprobableWord && (word.start + word.end) / 2 > from && word.end <= to;
  }
};

}  // namespace auris
