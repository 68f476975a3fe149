// The named weights of one Whisper checkpoint. Names are openai/whisper's state_dict names
// ("encoder.blocks.0.attn.query.weight"): every loader maps its own naming onto these, every writer
// maps back, so the engine sees one model whatever the file format was.
//
// Loaders register most tensors deferred: a shape and a function that decodes the fp32 values from
// the mapped file. Shapes can be checked without decoding, and the engine takes each tensor, decoded
// then, and converts it before taking the next one, so the whole model never sits in memory as fp32.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "model/tensor.h"

namespace auris {

class WeightMap {
 public:
  // Produces the tensor's fp32 values; it must return the shape it was registered with.
  using Decode = std::function<Tensor()>;

  // Throws auris::Error naming the missing tensor. Decodes a deferred tensor and keeps it.
  const Tensor& get(const std::string& name) const;
  // Like get(), and also checks the shape; throws auris::Error describing the mismatch.
  const Tensor& get(const std::string& name, const std::vector<int64_t>& expected_shape) const;
  // Never decodes.
  const std::vector<int64_t>& shape(const std::string& name) const;
  // Throws auris::Error when the tensor is missing or has another shape; never decodes.
  void expect_shape(const std::string& name, const std::vector<int64_t>& expected_shape) const;
  bool has(const std::string& name) const { return entries_.count(name) != 0; }
  void put(const std::string& name, Tensor tensor);
  void put_deferred(const std::string& name, std::vector<int64_t> shape, Decode decode);
  // Removes the tensor and hands it over, decoding it now if it was deferred.
  Tensor take(const std::string& name);

  std::vector<std::string> names() const;
  size_t size() const { return entries_.size(); }
  // Same names and the same decoded values.
  bool operator==(const WeightMap& other) const;

 private:
  struct Entry {
    Tensor tensor;  // its shape is always set; its data once decoded
    Decode decode;  // empty once decoded
  };
  Entry& find(const std::string& name) const;
  static void decode(const std::string& name, Entry& entry);

  // Mutable: get() decodes on first use, which does not change the map's value.
  mutable std::map<std::string, Entry> entries_;
};

}  // namespace auris
