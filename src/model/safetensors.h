// The safetensors format (Hugging Face): uint64 header length, a JSON header
// {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}, then the data.
// Reading checks every offset and size against the file before touching data.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/tensor.h"
#include "util/mapped_file.h"

namespace auris {

class SafetensorsFile {
 public:
  // Maps the file and validates its header; throws auris::Error naming the file and what is wrong.
  explicit SafetensorsFile(const std::string& path);

  bool has(const std::string& name) const { return entries_.count(name) != 0; }
  std::vector<std::string> names() const;
  const std::vector<int64_t>& shape(const std::string& name) const;
  // Throws auris::Error unless read() can decode the tensor (F32, F16 or BF16).
  void check_readable(const std::string& name) const;
  // The tensor as fp32; other dtypes than those are refused with a clear message.
  Tensor read(const std::string& name) const;
  const std::string& path() const { return file_->path(); }

 private:
  struct Entry {
    std::string dtype;
    std::vector<int64_t> shape;
    uint64_t begin = 0, end = 0;
  };
  std::unique_ptr<MappedFile> file_;
  uint64_t data_start_ = 0;
  std::map<std::string, Entry> entries_;
};

// Writes tensors (name -> tensor) as F32, or F16 when half is true. Throws auris::Error if the file
// cannot be written.
void write_safetensors(const std::string& path, const std::vector<std::pair<std::string, const Tensor*>>& tensors,
                       bool half);

}  // namespace auris
