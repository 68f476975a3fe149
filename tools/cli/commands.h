// The subcommands of the `auris` command line. Each registers its options on the CLI11 app and
// returns it with the action to run once parsing succeeded.
#pragma once

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <string>
#include <type_traits>

#include "util/number_text.h"

namespace auris::cli {

struct Command {
  CLI::App* parser;
  std::function<int()> run;  // returns the exit status; throws auris::Error on failure
};

// A number from low to high, or a whole number where T is an integer type. CLI::Range says
// "Value abc not in range 1 to 100" of text that is no number, and CLI::NonNegativeNumber quotes the
// largest double; this says what is needed.
template <typename T>
CLI::Validator within(T low, T high) {
  static_assert(std::is_arithmetic_v<T>);
  const auto shown = [](T x) { return std::is_integral_v<T> ? std::to_string(x) : number_text(static_cast<double>(x)); };
  const std::string range = shown(low) + " to " + shown(high);
  return CLI::Validator(
      [low, high, range](std::string& value) -> std::string {
        const std::string needed = std::string(std::is_integral_v<T> ? "a whole number" : "a number") + " from " + range +
                                   " is needed, got '" + value + "'";
        const char* first = value.c_str();
        char* end = nullptr;
        errno = 0;
        if constexpr (std::is_integral_v<T>) {
          const long long x = std::strtoll(first, &end, 10);
          if (end == first || *end != '\0' || errno == ERANGE || x < low || x > high) return needed;
        } else {
          const double x = std::strtod(first, &end);
          if (end == first || *end != '\0' || !(x >= low && x <= high)) return needed;
        }
        return "";
      },
      "[" + range + "]", "WITHIN");
}

// A number above 0, its message short (CLI::PositiveNumber's quotes the largest double).
inline const CLI::Validator& positive_number() {
  static const CLI::Validator positive(
      [](std::string& value) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(value.c_str(), &end);
        return end != value.c_str() && x > 0 ? "" : "a number above 0 is needed, got " + value;
      },
      "POSITIVE", "POSITIVE");
  return positive;
}

Command add_transcribe_command(CLI::App& app);
Command add_detect_language_command(CLI::App& app);
Command add_convert_command(CLI::App& app);
Command add_download_command(CLI::App& app);
Command add_models_command(CLI::App& app);
Command add_wer_command(CLI::App& app);
Command add_serve_command(CLI::App& app);
Command add_stream_command(CLI::App& app);

}  // namespace auris::cli
