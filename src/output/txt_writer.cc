#include "output/txt_writer.h"

#include "output/unicode_text.h"

namespace auris::output {

std::string format_txt(const Transcript& transcript) {
  std::string out;
  for (const Segment& segment : transcript.segments) out += python_strip(segment.text) + "\n";
  return out;
}

}  // namespace auris::output
