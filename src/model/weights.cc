#include "model/weights.h"

#include <sstream>

#include "auris/error.h"

namespace auris {

std::string Tensor::shape_string() const {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  out << ']';
  return out.str();
}

const Tensor& WeightMap::get(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end())
    throw Error("model is missing tensor '" + name + "': the file is incomplete or not a Whisper model");
  return it->second;
}

const Tensor& WeightMap::get(const std::string& name, const std::vector<int64_t>& expected_shape) const {
  const Tensor& t = get(name);
  if (t.shape != expected_shape) {
    Tensor expected;
    expected.shape = expected_shape;
    throw Error("model tensor '" + name + "' has shape " + t.shape_string() + ", expected " +
                expected.shape_string() + ": the file is corrupted or mixes model sizes");
  }
  return t;
}

void WeightMap::put(const std::string& name, Tensor tensor) { tensors_[name] = std::move(tensor); }

Tensor WeightMap::take(const std::string& name) {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw Error("model is missing tensor '" + name + "'");
  Tensor t = std::move(it->second);
  tensors_.erase(it);
  return t;
}

}  // namespace auris
