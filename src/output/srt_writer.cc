#include "output/srt_writer.h"

#include "output/subtitle_lines.h"

namespace auris::output {

std::string format_srt(const Transcript& transcript, const SubtitleOptions& options) {
  std::string out;
  int index = 0;
  for (const SubtitleCue& cue : subtitle_cues(transcript, options, /*always_include_hours=*/true, ","))
    out += std::to_string(++index) + "\n" + cue.start + " --> " + cue.end + "\n" + cue.text + "\n\n";
  return out;
}

}  // namespace auris::output
