// The subcommands of the `auris` command line. Each registers its options on the CLI11 app and
// returns it with the action to run once parsing succeeded.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <functional>
#include <string>

namespace auris::cli {

struct Command {
  CLI::App* parser;
  std::function<int()> run;  // returns the exit status; throws auris::Error on failure
};

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
