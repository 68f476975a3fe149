// A host tensor in fp32, row-major. Loaders dequantise whatever the file holds (fp16, bf16, int8 +
// scale) into this, so every loader produces the same in-memory model.
#pragma once

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "util/huge_pages.h"

namespace auris {

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> data;

  Tensor() = default;
  // Zeros; a large tensor on huge pages (util/huge_pages.h).
  explicit Tensor(std::vector<int64_t> shape_) : shape(std::move(shape_)) {
    resize_on_huge_pages(data, static_cast<size_t>(count(shape)));
  }

  static int64_t count(const std::vector<int64_t>& shape) {
    return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<int64_t>());
  }
  int64_t numel() const { return static_cast<int64_t>(data.size()); }
  int64_t dim(int i) const { return shape.at(static_cast<size_t>(i)); }
  int rank() const { return static_cast<int>(shape.size()); }
  std::string shape_string() const;

  bool operator==(const Tensor& other) const = default;
};

// "[2, 3]"
std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace auris
