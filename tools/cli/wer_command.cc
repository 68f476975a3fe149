// `auris wer REFERENCE HYPOTHESIS`: word error rate between two text files (one utterance per line),
// after openai/whisper's EnglishTextNormalizer by default, as the accuracy tests and benchmarks use.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <string>
#include <vector>

#include "auris/error.h"
#include "auris/text.h"
#include "commands.h"

namespace auris::cli {
namespace {

// Transcripts are text of a few megabytes at most; more (a device such as /dev/zero) is refused
// rather than read into memory.
constexpr size_t kMostBytes = 256u << 20;

std::vector<std::string> read_lines(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error("'" + path + "' is a directory: give a text file with one utterance per line");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read '" + path + "': give a text file with one utterance per line");
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (text.size() > kMostBytes)
      throw Error("'" + path + "' holds over " + std::to_string(kMostBytes >> 20) +
                  " MB: give a transcript, one utterance per line");
  }
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

}  // namespace

Command add_wer_command(CLI::App& app) {
  struct Args {
    std::string reference, hypothesis, normalizer = "english";
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("wer", "Word error rate of a transcript against a reference");
  cmd->add_option("reference", a->reference, "Reference text file, one utterance per line")->required();
  cmd->add_option("hypothesis", a->hypothesis, "Transcript file, line for line with the reference")->required();
  cmd->add_option("--normalizer", a->normalizer, "Text normalisation before comparing words")
      ->check(CLI::IsMember({"english", "basic", "none"}))
      ->capture_default_str();
  return {cmd, [a]() {
    const WerNormalization n = a->normalizer == "english" ? WerNormalization::kEnglish
                               : a->normalizer == "basic" ? WerNormalization::kBasic
                                                          : WerNormalization::kNone;
    const WordErrorRate w = word_error_rate(read_lines(a->reference), read_lines(a->hypothesis), n);
    std::printf("WER %.4f  (N=%zu, S=%zu, D=%zu, I=%zu)\n", w.rate, w.reference_words, w.substitutions,
                w.deletions, w.insertions);
    return 0;
  }};
}

}  // namespace auris::cli
