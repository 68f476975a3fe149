// The subcommands of the `auris` command line. Each registers its options on the CLI11 app and
// returns it with the action to run once parsing succeeded.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace auris::cli {

struct Command {
  CLI::App* parser;
  std::function<int()> run;  // returns the exit status; throws auris::Error on failure
};

Command add_transcribe_command(CLI::App& app);
Command add_detect_language_command(CLI::App& app);
Command add_convert_command(CLI::App& app);
Command add_download_command(CLI::App& app);
Command add_models_command(CLI::App& app);
Command add_wer_command(CLI::App& app);
Command add_serve_command(CLI::App& app);
Command add_stream_command(CLI::App& app);

}  // namespace auris::cli
