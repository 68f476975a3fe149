#include "transcribe/clip_timestamps.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

#include "auris/error.h"
#include "auris/transcribe.h"
#include "decoding/strip_whitespace.h"
#include "util/number_text.h"

namespace auris {

std::vector<double> parse_clip_timestamps(std::string_view text) {
  std::vector<double> values;
  if (text.empty()) return values;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    const std::string item = strip_whitespace(text.substr(begin, comma == std::string_view::npos ? text.npos : comma - begin));
    char* end = nullptr;
    errno = 0;
    const double value = item.empty() ? 0.0 : std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || errno == ERANGE)
      throw Error("clip_timestamps must be comma-separated seconds such as \"0,5.5,10\"; '" + item +
                  "' in \"" + std::string(text) + "\" is not a number");
    values.push_back(value);
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }
  return values;
}

std::vector<std::pair<int, int>> seek_clips(const std::vector<double>& clip_timestamps, int content_frames) {
  std::vector<int> points;
  for (double seconds : clip_timestamps) {
    if (!std::isfinite(seconds) || seconds < 0 || seconds > 1e8)
      throw Error("clip_timestamps must be non-negative finite seconds, up to 1e8, got " + number_text(seconds));
    // Python's round(): halves to even.
    points.push_back(static_cast<int>(std::nearbyint(seconds * 100.0)));
  }
  if (points.empty()) points.push_back(0);
  if (points.size() % 2 == 1) points.push_back(content_frames);
  std::vector<std::pair<int, int>> clips;
  for (size_t i = 0; i < points.size(); i += 2) {
    if (i + 1 < clip_timestamps.size() && points[i + 1] < points[i])
      throw Error("each clip in clip_timestamps must end after it starts; clip " + std::to_string(i / 2 + 1) + " runs from " +
                  number_text(clip_timestamps[i]) + " s back to " + number_text(clip_timestamps[i + 1]) + " s");
    clips.emplace_back(std::min(points[i], content_frames), std::min(points[i + 1], content_frames));
  }
  return clips;
}

}  // namespace auris
