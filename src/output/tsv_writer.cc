#include "output/tsv_writer.h"

#include <algorithm>

#include "output/timestamp_format.h"
#include "output/unicode_text.h"

namespace auris::output {

std::string format_tsv(const Transcript& transcript) {
  std::string out = "start\tend\ttext\n";
  for (const Segment& segment : transcript.segments) {
    std::string text = python_strip(segment.text);
    std::replace(text.begin(), text.end(), '\t', ' ');
    out += std::to_string(python_round(1000 * segment.start)) + "\t" +
           std::to_string(python_round(1000 * segment.end)) + "\t" + text + "\n";
  }
  return out;
}

}  // namespace auris::output
