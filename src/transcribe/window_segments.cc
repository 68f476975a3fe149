#include "transcribe/window_segments.h"

#include "audio/mel.h"

namespace auris {
namespace {

constexpr double kTimePrecision = 0.02;  // seconds per timestamp token
constexpr int kInputStride = 2;          // mel frames per encoder position

}  // namespace

WindowSplit split_window(const std::vector<int>& tokens, int timestamp_begin, int seek, int segment_size) {
  WindowSplit split;
  const double time_offset = static_cast<double>(seek) * kHopLength / kSampleRate;
  const int n = static_cast<int>(tokens.size());
  auto is_timestamp = [&](int i) { return tokens[i] >= timestamp_begin; };
  const bool single_timestamp_ending = n >= 2 && !is_timestamp(n - 2) && is_timestamp(n - 1);
  split.single_timestamp_ending = single_timestamp_ending;

  std::vector<int> slices;  // indices i where tokens[i-1] and tokens[i] are both timestamps
  for (int i = 1; i < n; ++i)
    if (is_timestamp(i - 1) && is_timestamp(i)) slices.push_back(i);

  if (!slices.empty()) {
    if (single_timestamp_ending) slices.push_back(n);
    int last_slice = 0;
    for (int current : slices) {
      WindowSegment seg;
      seg.tokens.assign(tokens.begin() + last_slice, tokens.begin() + current);
      seg.start = time_offset + (seg.tokens.front() - timestamp_begin) * kTimePrecision;
      seg.end = time_offset + (seg.tokens.back() - timestamp_begin) * kTimePrecision;
      split.segments.push_back(std::move(seg));
      last_slice = current;
    }
    if (single_timestamp_ending) {
      split.seek_advance = segment_size;
    } else {
      // Ignore the unfinished segment and seek to the last timestamp: the next window redoes it.
      split.seek_advance = (tokens[last_slice - 1] - timestamp_begin) * kInputStride;
    }
  } else {
    double duration = static_cast<double>(segment_size) * kHopLength / kSampleRate;
    int last_timestamp = -1;
    for (int t : tokens)
      if (t >= timestamp_begin) last_timestamp = t;
    if (last_timestamp >= 0 && last_timestamp != timestamp_begin)
      duration = (last_timestamp - timestamp_begin) * kTimePrecision;
    split.segments.push_back({time_offset, time_offset + duration, tokens});
    split.seek_advance = segment_size;
  }
  return split;
}

}  // namespace auris
