// `auris convert MODEL --to hf|ggml -o OUT`: rewrites any loadable model in another format.
#include <cstdio>
#include <string>

#include "auris/model.h"
#include "commands.h"
#include "model/model_loader.h"

namespace auris::cli {

Command add_convert_command(CLI::App& app) {
  struct Options {
    std::string input, to, output;
    bool half = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("convert", "Write a model out as Hugging Face safetensors or whisper.cpp ggml");
  cmd->add_option("model", opts->input, "Model name or path (CTranslate2 dir, Hugging Face dir, ggml file)")->required();
  cmd->add_option("--to", opts->to, "Output format")->required()->check(CLI::IsMember({"hf", "ggml"}));
  cmd->add_option("-o,--output", opts->output, "Output directory (hf) or file (ggml)")->required();
  cmd->add_flag("--f16", opts->half, "Store weights as float16 (default float32)");
  return {cmd, [opts]() {
    ModelData data = load_model_data(resolve_model_path(opts->input));
    if (opts->to == "hf")
      write_huggingface(data, opts->output, opts->half);
    else
      write_ggml(data, opts->output, opts->half);
    std::fprintf(stderr, "auris: wrote %s\n", opts->output.c_str());
    return 0;
  }};
}

}  // namespace auris::cli
