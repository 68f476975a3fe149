// A read-only memory map of a whole file. Loaders parse through ByteReader over bytes() so a
// truncated or hostile file can never make them read past its end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace auris {

class MappedFile {
 public:
  // Throws auris::Error when the path is missing, a directory, or unreadable.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  // Drops the whole pages inside `range` (a part of bytes()) from memory: loaders call it once they
  // have converted a tensor, so a model's file and its converted weights are never resident together.
  // A later read of the range faults the pages back in from the file.
  void release(std::span<const uint8_t> range) const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// Reads a small text file (config.json, vocabularies) whole; throws auris::Error if it cannot.
std::string read_text_file(const std::string& path);

}  // namespace auris
