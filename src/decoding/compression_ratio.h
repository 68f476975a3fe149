// openai/whisper's gzip compression ratio of a text: len(utf8) / len(zlib.compress(utf8)), the
// repetition measure behind the temperature fallback.
#pragma once

#include <string_view>

namespace auris {

double compression_ratio(std::string_view text);

}  // namespace auris
