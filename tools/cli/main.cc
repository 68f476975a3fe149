// `auris`: speech recognition with Whisper models. Subcommands: transcribe, detect-language,
// models, download, convert, wer, serve, stream. Every failure ends in one line on stderr and a non-zero exit.
#include <malloc.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <new>
#include <vector>

#include "auris/error.h"
#include "commands.h"
#include "util/out_of_memory.h"

namespace {

// A command's exit status once what it printed has reached standard output: a transcript that a
// full disk refused is a failure, not a success.
int written_out(int status) {
  errno = 0;
  std::cout.flush();  // synchronised with stdio: this flushes stdout, and sets errno on failure
  const bool flushed = std::fflush(stdout) == 0;
  const int error = errno;
  if (!flushed || std::ferror(stdout) || !std::cout) {
    std::fprintf(stderr, "auris: error: could not write to standard output (%s)\n",
                 error ? std::strerror(error) : "the disk is full or the output was closed");
    return status == 0 ? 1 : status;
  }
  return status;
}

// CLI11's ranges let "nan" through (no comparison with it fails): every number option of every
// subcommand must also be finite.
void require_finite_numbers(CLI::App& app) {
  const CLI::Validator finite(
      [](std::string& value) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(value.c_str(), &end);
        return end != value.c_str() && !std::isfinite(x) ? "a finite number is needed, got " + value : "";
      },
      "", "FINITE");
  for (CLI::App* command : app.get_subcommands({}))
    for (CLI::Option* option : command->get_options())
      if (option->get_type_name().rfind("FLOAT", 0) == 0) option->check(finite);
}

}  // namespace

int main(int argc, char** argv) {
  // glibc gives each thread that allocates a heap of its own (up to 8 a core), and a batch decodes
  // each window on a thread of its own: at batch 16 the heaps' separate free memory held 70-85 MB
  // more at peak than 2 shared heaps (docs/BENCHMARKS.md, the batched memory table). A
  // MALLOC_ARENA_MAX the user sets still decides.
  if (!std::getenv("MALLOC_ARENA_MAX")) mallopt(M_ARENA_MAX, 2);
  CLI::App app{"auris: fast, faithful OpenAI Whisper speech recognition"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "auris 0.1.0");
  const std::vector<auris::cli::Command> commands = {
      auris::cli::add_transcribe_command(app), auris::cli::add_detect_language_command(app),
      auris::cli::add_models_command(app),     auris::cli::add_download_command(app),
      auris::cli::add_convert_command(app),    auris::cli::add_wer_command(app),
      auris::cli::add_serve_command(app),      auris::cli::add_stream_command(app),
  };

  require_finite_numbers(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (const auto& command : commands)
      if (command.parser->parsed()) return written_out(command.run());
  } catch (const auris::Error& e) {
    std::fprintf(stderr, "auris: error: %s\n", e.what());
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {
    // The system refused a path (a symlink loop, a name too long, no permission): the user's to fix.
    std::fprintf(stderr, "auris: error: cannot use '%s': %s\n", e.path1().c_str(), e.code().message().c_str());
    return 1;
  } catch (const std::bad_alloc& e) {
    std::fprintf(stderr, "auris: error: %s: the input or the options need more than this machine has\n",
                 dynamic_cast<const auris::OutOfMemory*>(&e) ? e.what() : "out of memory");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "auris: internal error: %s\n", e.what());
    return 2;
  }
  return 1;
}
