#include "decoding/compression_ratio.h"

#include <zlib.h>

#include <vector>

#include "auris/error.h"

namespace auris {

double compression_ratio(std::string_view text) {
  // Python's zlib.compress(data) is compress2 at Z_DEFAULT_COMPRESSION.
  uLongf size = compressBound(static_cast<uLong>(text.size()));
  std::vector<Bytef> buffer(size);
  const int rc = compress2(buffer.data(), &size, reinterpret_cast<const Bytef*>(text.data()),
                           static_cast<uLong>(text.size()), Z_DEFAULT_COMPRESSION);
  if (rc != Z_OK) throw Error("zlib failed to compress " + std::to_string(text.size()) + " bytes of text (code " +
                              std::to_string(rc) + ")");
  return static_cast<double>(text.size()) / static_cast<double>(size);
}

}  // namespace auris
