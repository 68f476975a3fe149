// The one exception type auris throws across its API: every failure a user can cause (a bad model
// file, bad audio, a bad option) ends here with a message that says what went wrong and what to do.
#pragma once

#include <stdexcept>
#include <string>

namespace auris {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace auris
