// `auris`: speech recognition with Whisper models. Subcommands: transcribe, detect-language,
// models, download, convert, wer, serve, stream. Every failure ends in one line on stderr and a non-zero exit.
#include <cstdio>
#include <exception>
#include <vector>

#include "auris/error.h"
#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"auris: fast, faithful OpenAI Whisper speech recognition"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "auris 0.1.0");
  const std::vector<auris::cli::Command> commands = {
      auris::cli::add_transcribe_command(app), auris::cli::add_detect_language_command(app),
      auris::cli::add_models_command(app),     auris::cli::add_download_command(app),
      auris::cli::add_convert_command(app),    auris::cli::add_wer_command(app),
      auris::cli::add_serve_command(app),      auris::cli::add_stream_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (const auto& command : commands)
      if (command.parser->parsed()) return command.run();
  } catch (const auris::Error& e) {
    std::fprintf(stderr, "auris: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "auris: internal error: %s\n", e.what());
    return 2;
  }
  return 1;
}
