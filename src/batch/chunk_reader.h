// The chunks of one recording, read in order from its samples as the batch asks for them: only the
// chunks in flight are held, however long the recording. The batch takes chunks roughly in order
// (each slot the next job), so the chunks read ahead of their taker are at most about one per slot.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "audio/sample_source.h"

namespace auris {

class ChunkReader {
 public:
  // sizes: each chunk's samples, in order; one pass of the source yields their sum.
  ChunkReader(std::unique_ptr<SampleSource> source, std::vector<int64_t> sizes);

  // Chunk i's samples, reading up to it if need be (chunks before it that no one took yet are kept
  // for their takers). Each chunk can be taken once. Thread-safe. Throws auris::Error when the
  // recording ends early (it changed since it was measured) or cannot be read.
  std::vector<float> take(size_t i);
  size_t size() const { return sizes_.size(); }
  int64_t samples_in(size_t i) const { return sizes_.at(i); }

 private:
  std::mutex mutex_;
  std::unique_ptr<SampleSource> source_;
  std::unique_ptr<SamplePass> pass_;
  std::vector<int64_t> sizes_;
  size_t next_ = 0;  // the next chunk the pass gives
  std::map<size_t, std::vector<float>> read_ahead_;
};

}  // namespace auris
