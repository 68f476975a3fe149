// An allocation that failed, saying what it was for. It is a std::bad_alloc, so that every caller
// reports it as running out of memory (the CLI's message, the C API's AURIS_INTERNAL_ERROR, Python's
// MemoryError), never as bad audio or a bad model.
#pragma once

#include <new>
#include <string>

namespace auris {

class OutOfMemory : public std::bad_alloc {
 public:
  explicit OutOfMemory(const std::string& purpose) : what_("out of memory " + purpose) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

}  // namespace auris
