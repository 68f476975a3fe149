#include "model/weights.h"

#include <sstream>

#include "auris/error.h"

namespace auris {

std::string shape_string(const std::vector<int64_t>& shape) {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  out << ']';
  return out.str();
}

std::string Tensor::shape_string() const { return auris::shape_string(shape); }

WeightMap::Entry& WeightMap::find(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end())
    throw Error("model is missing tensor '" + name + "': the file is incomplete or not a Whisper model");
  return it->second;
}

void WeightMap::decode(const std::string& name, Entry& entry) {
  if (!entry.decode) return;
  Tensor t = entry.decode();
  if (t.shape != entry.tensor.shape || t.numel() != Tensor::count(t.shape))
    throw Error("model tensor '" + name + "' decoded to shape " + t.shape_string() + ", registered as " +
                entry.tensor.shape_string() + ": the loader is inconsistent");
  entry.tensor = std::move(t);
  entry.decode = nullptr;
}

const Tensor& WeightMap::get(const std::string& name) const {
  Entry& entry = find(name);
  decode(name, entry);
  return entry.tensor;
}

const Tensor& WeightMap::get(const std::string& name, const std::vector<int64_t>& expected_shape) const {
  expect_shape(name, expected_shape);
  return get(name);
}

const std::vector<int64_t>& WeightMap::shape(const std::string& name) const { return find(name).tensor.shape; }

void WeightMap::expect_shape(const std::string& name, const std::vector<int64_t>& expected_shape) const {
  const std::vector<int64_t>& actual = shape(name);
  if (actual != expected_shape)
    throw Error("model tensor '" + name + "' has shape " + shape_string(actual) + ", expected " +
                shape_string(expected_shape) + ": the file is corrupted or mixes model sizes");
}

void WeightMap::put(const std::string& name, Tensor tensor) { entries_[name] = Entry{std::move(tensor), nullptr}; }

void WeightMap::put_deferred(const std::string& name, std::vector<int64_t> shape, Decode decode) {
  Tensor placeholder;
  placeholder.shape = std::move(shape);
  entries_[name] = Entry{std::move(placeholder), std::move(decode)};
}

Tensor WeightMap::take(const std::string& name) {
  Entry& entry = find(name);
  decode(name, entry);
  Tensor t = std::move(entry.tensor);
  entries_.erase(name);
  return t;
}

std::vector<std::string> WeightMap::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& [name, entry] : entries_) out.push_back(name);
  return out;
}

bool WeightMap::operator==(const WeightMap& other) const {
  if (names() != other.names()) return false;
  for (const auto& [name, entry] : entries_)
    if (get(name) != other.get(name)) return false;
  return true;
}

}  // namespace auris
