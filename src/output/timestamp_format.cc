#include "output/timestamp_format.h"

#include <cmath>
#include <cstdio>

#include "auris/error.h"

namespace auris::output {

long long python_round(double x) {
  if (!std::isfinite(x) || std::fabs(x) > 9e15)
    throw Error("cannot write a timestamp of " + std::to_string(x) +
                " ms: the transcript holds a non-finite or absurdly large time");
  double whole = std::floor(x);
  const double fraction = x - whole;  // exact: a double's fractional part is representable
  if (fraction > 0.5 || (fraction == 0.5 && std::fmod(whole, 2.0) != 0.0)) whole += 1.0;
  return static_cast<long long>(whole);
}

std::string format_timestamp(double seconds, bool always_include_hours, std::string_view decimal_marker) {
  if (!(seconds >= 0.0))
    throw Error("cannot format the timestamp " + std::to_string(seconds) +
                " s: subtitle times must be non-negative (the transcript's segment or word times are invalid)");
  long long milliseconds = python_round(seconds * 1000.0);
  const long long hours = milliseconds / 3'600'000;
  milliseconds -= hours * 3'600'000;
  const long long minutes = milliseconds / 60'000;
  milliseconds -= minutes * 60'000;
  const long long whole_seconds = milliseconds / 1'000;
  milliseconds -= whole_seconds * 1'000;

  char buffer[96];
  std::string out;
  if (always_include_hours || hours > 0) {
    std::snprintf(buffer, sizeof buffer, "%02lld:", hours);
    out += buffer;
  }
  std::snprintf(buffer, sizeof buffer, "%02lld:%02lld", minutes, whole_seconds);
  out += buffer;
  out += decimal_marker;
  std::snprintf(buffer, sizeof buffer, "%03lld", milliseconds);
  out += buffer;
  return out;
}

}  // namespace auris::output
