#include "transcript_format.h"

#include <omp.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <cstdio>

#include "auris/error.h"

namespace auris::cli {

std::string trim(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t\n\r");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\n\r") - begin + 1);
}

namespace {

std::string format_timestamp(double seconds) {
  long long ms = std::llround(seconds * 1000.0);
  const long long hours = ms / 3600000;
  ms -= hours * 3600000;
  const long long minutes = ms / 60000;
  ms -= minutes * 60000;
  const long long secs = ms / 1000;
  ms -= secs * 1000;
  char buf[80];  // room for any long long: -Wformat-truncation cannot bound them
  if (hours > 0)
    std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld.%03lld", hours, minutes, secs, ms);
  else
    std::snprintf(buf, sizeof buf, "%02lld:%02lld.%03lld", minutes, secs, ms);
  return buf;
}

}  // namespace

std::string format_segment_line(const Segment& segment) {
  // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) about "[" + std::string.
  std::string line = "[";
  line += format_timestamp(segment.start);
  line += " --> ";
  line += format_timestamp(segment.end);
  line += "] ";
  line += segment.text;
  return line;
}

void require_writable_directory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir) || ::access(dir.c_str(), W_OK) != 0)
    throw Error("cannot write output files in '" + dir + "': choose another --output-dir");
}

void set_cpu_threads(int threads) {
  if (threads <= 0) return;
  omp_set_num_threads(threads);  // our kernels and oneDNN share this OpenMP pool
}

}  // namespace auris::cli
