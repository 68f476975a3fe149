// `auris convert MODEL --to hf|ggml -o OUT`: rewrites any loadable model in another format;
// `--quantize q8_0|q4_0` writes a ggml file as whisper.cpp's `quantize` tool would.
// `--random-weights NAME` writes instead a model of NAME's shape with random weights and MODEL's
// vocabulary, for timing runs at the large models' real shapes (docs/BENCHMARKS.md, GPU).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

#include "auris/error.h"
#include "auris/model.h"
#include "commands.h"
#include "model_fetch.h"
#include "model/model_loader.h"
#include "model/model_registry.h"
#include "model/random_model.h"

namespace auris::cli {
namespace {

namespace fs = std::filesystem;

// Writes the model beside the output first and moves it there once whole, so that a full disk or
// an error leaves no half-written model, and whatever was at the output as it was.
void write_whole(const fs::path& output, bool directory, const std::function<void(const std::string&)>& write) {
  const fs::path parent = output.has_parent_path() ? output.parent_path() : fs::path(".");
  if (!fs::is_directory(parent)) throw Error("cannot write '" + output.string() + "': the directory '" + parent.string() + "' does not exist");
  const fs::path partial = output.string() + ".partial-" + std::to_string(::getpid());
  try {
    write(partial.string());
    if (!directory) {
      fs::rename(partial, output);
      return;
    }
    fs::create_directories(output);
    for (const fs::directory_entry& file : fs::directory_iterator(partial)) fs::rename(file.path(), output / file.path().filename());
    fs::remove(partial);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(partial, ignored);
    throw;
  }
}

}  // namespace

Command add_convert_command(CLI::App& app) {
  struct Options {
    std::string input, to, output, random_shape, quantize;
    bool half = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("convert", "Write a model out as Hugging Face safetensors or whisper.cpp ggml");
  cmd->add_option("model", opts->input, "Model name or path (CTranslate2 dir, Hugging Face dir, ggml file)")->required();
  cmd->add_option("--to", opts->to, "Output format")->required()->check(CLI::IsMember({"hf", "ggml"}));
  cmd->add_option("-o,--output", opts->output, "Output directory (hf) or file (ggml)")->required();
  cmd->add_flag("--f16", opts->half, "Store weights as float16 (default float32)");
  cmd->add_option("--quantize", opts->quantize,
                  "ggml only: store the weight matrices in whisper.cpp's q8_0 or q4_0 blocks (its `quantize` tool's output)")
      ->check(CLI::IsMember({"q8_0", "q4_0"}));
  cmd->add_option("--random-weights", opts->random_shape,
                  "Write a model of this registry shape (e.g. large-v3) with random weights and MODEL's vocabulary");
  return {cmd, [opts]() {
    if (!opts->quantize.empty() && opts->to != "ggml")
      throw Error("--quantize writes whisper.cpp ggml files: use it with --to ggml");
    if (!opts->quantize.empty() && opts->half) throw Error("--quantize and --f16 are two storage types: give one");
    ModelData data = load_model_data(fetched_model(opts->input));
    if (!opts->random_shape.empty()) data = random_model(registry_model(opts->random_shape), std::move(data.vocab));
    if (opts->to == "hf") {
      write_whole(opts->output, true, [&](const std::string& dir) { write_huggingface(data, dir, opts->half); });
    } else {
      const GgmlWeights weights = opts->quantize == "q8_0"   ? GgmlWeights::kQ8_0
                                  : opts->quantize == "q4_0" ? GgmlWeights::kQ4_0
                                  : opts->half               ? GgmlWeights::kFloat16
                                                             : GgmlWeights::kFloat32;
      write_whole(opts->output, false, [&](const std::string& file) { write_ggml(data, file, weights); });
    }
    std::fprintf(stderr, "auris: wrote %s\n", opts->output.c_str());
    return 0;
  }};
}

}  // namespace auris::cli
