// A number as a message shows it: "%g", so 1e+300 and 1e-30 stay short, where std::to_string would
// print 300 digits or 0.000000.
#pragma once

#include <cstdio>
#include <string>

namespace auris {

inline std::string number_text(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", x);
  return buffer;
}

}  // namespace auris
