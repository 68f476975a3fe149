// The median filter openai/whisper's timing.py smooths attention weights with: along each row,
// width `filter_width` (odd), the row reflect-padded by filter_width / 2 at both ends (mirrored
// without repeating the edge, as torch's F.pad(mode="reflect")). Rows no longer than the padding
// are left as they are, as openai does.
#pragma once

#include <vector>

namespace auris {

// x: `rows` rows of `cols` values, filtered in place. Throws auris::Error for an even or
// non-positive width or a shape that does not match x.
void median_filter(std::vector<float>& x, int rows, int cols, int filter_width);

}  // namespace auris
