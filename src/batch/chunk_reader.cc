#include "batch/chunk_reader.h"

#include <string>

#include "auris/error.h"

namespace auris {

ChunkReader::ChunkReader(std::unique_ptr<SampleSource> source, std::vector<int64_t> sizes)
    : source_(std::move(source)), sizes_(std::move(sizes)) {}

std::vector<float> ChunkReader::take(size_t i) {
  std::lock_guard lock(mutex_);
  if (i >= sizes_.size()) throw Error("chunk " + std::to_string(i) + " of " + source_->name() + " does not exist");
  if (i < next_) {
    const auto it = read_ahead_.find(i);
    if (it == read_ahead_.end()) throw Error("chunk " + std::to_string(i) + " of " + source_->name() + " was taken already");
    std::vector<float> chunk = std::move(it->second);
    read_ahead_.erase(it);
    return chunk;
  }
  if (!pass_) pass_ = source_->open();
  for (;; ++next_) {
    std::vector<float> chunk;
    const size_t size = static_cast<size_t>(sizes_[next_]);
    chunk.reserve(size);
    while (chunk.size() < size)
      if (pass_->read(chunk, size - chunk.size()) == 0)
        throw Error(source_->name() + " ended before its chunk " + std::to_string(next_) +
                    ": did the file change while it was being transcribed?");
    if (next_ == i) {
      ++next_;
      if (next_ == sizes_.size()) pass_.reset();  // done with the recording: close the file
      return chunk;
    }
    read_ahead_.emplace(next_, std::move(chunk));
  }
}

}  // namespace auris
