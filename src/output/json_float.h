// A double as Python's json.dump writes it: float.__repr__ (the shortest digits that round-trip,
// fixed notation for exponents -4..15 with a ".0" on integers, else "1e-05" style), and NaN,
// Infinity, -Infinity for the non-finite values (json's allow_nan default).
#pragma once

#include <string>

namespace auris::output {

std::string json_float(double value);

}  // namespace auris::output
