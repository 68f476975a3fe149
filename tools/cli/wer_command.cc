// `auris wer REFERENCE HYPOTHESIS`: word error rate between two text files (one utterance per line),
// after openai/whisper's EnglishTextNormalizer by default, as the accuracy tests and benchmarks use.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "auris/error.h"
#include "auris/text.h"
#include "commands.h"

namespace auris::cli {
namespace {

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read '" + path + "': give a text file with one utterance per line");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
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
