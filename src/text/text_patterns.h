// The regular expressions that openai/whisper's Basic and English normalisers share, compiled once
// per process.
#pragma once

#include "text/python_regex.h"

namespace auris {

struct TextPatterns {
  PythonRegex bracketed{R"([<\[][^>\]]*[>\]])"};  // "[noise]", "<unk>"
  PythonRegex parenthesized{R"(\(([^)]+?)\))"};   // "(laughs)"
  PythonRegex whitespace_run{R"(\s+)"};

  static const TextPatterns& get() {
    static const TextPatterns patterns;
    return patterns;
  }
};

}  // namespace auris
