// The named weights of one Whisper checkpoint. Names are openai/whisper's state_dict names
// ("encoder.blocks.0.attn.query.weight"): every loader maps its own naming onto these, every writer
// maps back, so the engine sees one model whatever the file format was.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/tensor.h"

namespace auris {

class WeightMap {
 public:
  // Throws auris::Error naming the missing tensor.
  const Tensor& get(const std::string& name) const;
  // Like get(), and also checks the shape; throws auris::Error describing the mismatch.
  const Tensor& get(const std::string& name, const std::vector<int64_t>& expected_shape) const;
  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  void put(const std::string& name, Tensor tensor);
  Tensor take(const std::string& name);

  const std::map<std::string, Tensor>& all() const { return tensors_; }
  size_t size() const { return tensors_.size(); }
  bool operator==(const WeightMap& other) const = default;

 private:
  std::map<std::string, Tensor> tensors_;
};

}  // namespace auris
