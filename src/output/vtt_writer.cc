#include "output/vtt_writer.h"

#include "output/subtitle_lines.h"

namespace auris::output {

std::string format_vtt(const Transcript& transcript, const SubtitleOptions& options) {
  std::string out = "WEBVTT\n\n";
  for (const SubtitleCue& cue : subtitle_cues(transcript, options, /*always_include_hours=*/false, "."))
    out += cue.start + " --> " + cue.end + "\n" + cue.text + "\n\n";
  return out;
}

}  // namespace auris::output
