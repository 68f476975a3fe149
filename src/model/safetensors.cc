#include "model/safetensors.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>

#include "auris/error.h"
#include "model/half_float.h"
#include "util/bounded_json.h"
#include "util/byte_reader.h"
#include "util/shown_text.h"

namespace auris {
namespace {

constexpr uint64_t kMaxHeaderBytes = 100u << 20;  // the safetensors spec's own limit

int dtype_size(const std::string& dtype) {
  if (dtype == "F32") return 4;
  if (dtype == "F16" || dtype == "BF16") return 2;
  return 0;
}

}  // namespace

SafetensorsFile::SafetensorsFile(const std::string& path) : file_(std::make_unique<MappedFile>(path)) {
  const std::string what = "safetensors file '" + path + "'";
  ByteReader in(file_->bytes(), what);
  const uint64_t header_size = in.read<uint64_t>();
  if (header_size > kMaxHeaderBytes || header_size > in.remaining())
    throw Error(what + " claims a " + std::to_string(header_size) + "-byte header but holds " +
                std::to_string(in.remaining()) + " bytes: the file is truncated or not safetensors");
  const std::string header_text = in.read_string(header_size);
  data_start_ = in.position();
  const uint64_t data_size = in.remaining();
  nlohmann::json header;
  try {
    header = parse_bounded_json(header_text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(what + " has a corrupted header (" + shown(e.what()) + ")");
  }
  if (!header.is_object()) throw Error(what + " has a header that is not a JSON object");
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string bad = what + " tensor '" + name + "' ";
    if (!info.is_object() || !info.contains("dtype") || !info.contains("shape") || !info.contains("data_offsets") ||
        !info["dtype"].is_string() || !info["shape"].is_array() || !info["data_offsets"].is_array() ||
        info["data_offsets"].size() != 2)
      throw Error(bad + "has a malformed header entry " + info.dump());
    Entry e;
    e.dtype = info["dtype"].get<std::string>();
    uint64_t numel = 1;
    for (const auto& d : info["shape"]) {
      if (!d.is_number_unsigned()) throw Error(bad + "has an invalid shape " + info["shape"].dump());
      e.shape.push_back(d.get<int64_t>());
      numel *= d.get<uint64_t>();
      if (d.get<uint64_t>() > data_size || numel > data_size) throw Error(bad + "has shape " + info["shape"].dump() + ", larger than the file");
    }
    for (const auto& o : info["data_offsets"])
      if (!o.is_number_unsigned()) throw Error(bad + "has invalid data_offsets " + info["data_offsets"].dump());
    e.begin = info["data_offsets"][0].get<uint64_t>();
    e.end = info["data_offsets"][1].get<uint64_t>();
    if (e.begin > e.end || e.end > data_size)
      throw Error(bad + "has data_offsets " + info["data_offsets"].dump() + " outside the " + std::to_string(data_size) +
                  "-byte data section: the file is truncated or corrupted");
    const int size = dtype_size(e.dtype);
    if (size != 0 && e.end - e.begin != numel * size)
      throw Error(bad + "holds " + std::to_string(e.end - e.begin) + " bytes, but " + e.dtype + " " +
                  info["shape"].dump() + " needs " + std::to_string(numel * size) + ": the file is corrupted");
    entries_[name] = std::move(e);
  }
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : entries_) out.push_back(name);
  return out;
}

const std::vector<int64_t>& SafetensorsFile::shape(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) throw Error("safetensors file '" + path() + "' has no tensor '" + name + "'");
  return it->second.shape;
}

void SafetensorsFile::check_readable(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) throw Error("safetensors file '" + path() + "' has no tensor '" + name + "'");
  if (dtype_size(it->second.dtype) == 0)
    throw Error("safetensors file '" + path() + "' stores '" + name + "' as " + it->second.dtype +
                "; auris reads F32, F16 and BF16 checkpoints: convert it to one of those");
}

Tensor SafetensorsFile::read(const std::string& name) const {
  check_readable(name);
  const Entry& e = entries_.at(name);
  Tensor t(e.shape);
  const uint8_t* p = file_->bytes().data() + data_start_ + e.begin;
  const size_t n = t.data.size();
  if (e.dtype == "F32") {
    std::memcpy(t.data.data(), p, n * 4);
  } else if (e.dtype == "F16") {
    fp16_to_float_n(p, n, t.data.data());
  } else {
    for (size_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, p + 2 * i, 2);
      t.data[i] = bf16_to_float(h);
    }
  }
  file_->release({p, n * (e.dtype == "F32" ? 4u : 2u)});
  return t;
}

void write_safetensors(const std::string& path, const std::vector<std::pair<std::string, const Tensor*>>& tensors,
                       bool half) {
  nlohmann::json header = nlohmann::json::object();
  header["__metadata__"] = {{"format", "pt"}};
  uint64_t offset = 0;
  const int size = half ? 2 : 4;
  for (const auto& [name, tensor] : tensors) {
    const uint64_t bytes = static_cast<uint64_t>(tensor->numel()) * size;
    header[name] = {{"dtype", half ? "F16" : "F32"}, {"shape", tensor->shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  while ((text.size() + 8) % 8 != 0) text.push_back(' ');  // keep the data 8-byte aligned, as Hugging Face does
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error("cannot write '" + path + "': check the directory exists and is writable");
  const uint64_t header_size = text.size();
  out.write(reinterpret_cast<const char*>(&header_size), 8);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  for (const auto& [name, tensor] : tensors) {
    if (half) {
      std::vector<uint16_t> h(tensor->data.size());
      for (size_t i = 0; i < h.size(); ++i) h[i] = float_to_fp16(tensor->data[i]);
      out.write(reinterpret_cast<const char*>(h.data()), static_cast<std::streamsize>(h.size() * 2));
    } else {
      out.write(reinterpret_cast<const char*>(tensor->data.data()), static_cast<std::streamsize>(tensor->data.size() * 4));
    }
  }
  if (!out.flush()) throw Error("failed writing '" + path + "': the disk may be full");
}

}  // namespace auris
