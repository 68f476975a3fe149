// Bounds-checked little-endian reads over a byte span. Every read checks what is left first, so a
// header that claims more than the file holds is reported, never followed.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "auris/error.h"

namespace auris {

class ByteReader {
 public:
  ByteReader(std::span<const uint8_t> bytes, std::string what) : bytes_(bytes), what_(std::move(what)) {}

  template <typename T>
  T read() {
    static_assert(std::is_trivially_copyable_v<T>);
    require(sizeof(T));
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }

  std::span<const uint8_t> read_bytes(uint64_t n) {
    require(n);
    auto out = bytes_.subspan(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return out;
  }

  std::string read_string(uint64_t n) {
    auto b = read_bytes(n);
    return std::string(reinterpret_cast<const char*>(b.data()), b.size());
  }

  void skip(uint64_t n) { read_bytes(n); }
  size_t position() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  bool at_end() const { return pos_ == bytes_.size(); }

  // Throws unless n more bytes exist: the message names the file and says it is truncated.
  void require(uint64_t n) const {
    if (n > remaining())
      throw Error(what_ + " is truncated or corrupted: needs " + std::to_string(n) + " bytes at offset " +
                  std::to_string(pos_) + " but only " + std::to_string(remaining()) + " remain");
  }

 private:
  std::span<const uint8_t> bytes_;
  std::string what_;
  size_t pos_ = 0;
};

}  // namespace auris
