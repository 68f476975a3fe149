// Format detection and dispatch: a directory with model.bin is CTranslate2, one with config.json and
// safetensors is Hugging Face, a file starting with the "ggml" magic is whisper.cpp.
#include "model/model_loader.h"

#include <filesystem>
#include <fstream>

#include "auris/error.h"
#include "model/ggml_format.h"

namespace fs = std::filesystem;

namespace auris {
namespace {

constexpr const char* kExpected =
    "expected a CTranslate2 directory (model.bin), a Hugging Face directory (config.json + model.safetensors) "
    "or a whisper.cpp ggml .bin file";

bool starts_with_ggml_magic(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  uint32_t magic = 0;
  in.read(reinterpret_cast<char*>(&magic), sizeof magic);
  return in.gcount() == sizeof magic && magic == kGgmlMagic;
}

// The directory a CTranslate2 model.bin path stands for.
std::string ct2_dir(const std::string& path) {
  return fs::is_directory(path) ? path : fs::path(path).parent_path().string();
}

}  // namespace

ModelFormat detect_model_format(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    throw Error("model path '" + path + "' does not exist: pass a model directory or file (" + kExpected + ")");
  if (fs::is_directory(status)) {
    const fs::path dir(path);
    if (fs::exists(dir / "model.bin")) {
      if (!fs::is_regular_file(dir / "model.bin", ec))
        throw Error("'" + (dir / "model.bin").string() + "' is not a regular file: a CTranslate2 model directory holds its weights in one");
      return ModelFormat::kCTranslate2;
    }
    if (fs::exists(dir / "config.json") &&
        (fs::exists(dir / "model.safetensors") || fs::exists(dir / "model.safetensors.index.json") ||
         fs::exists(dir / "pytorch_model.bin")))
      return ModelFormat::kHuggingFace;
    throw Error("directory '" + path + "' holds no model files: " + kExpected);
  }
  // A FIFO or a device would be read forever, or block until a writer comes.
  if (!fs::is_regular_file(status))
    throw Error("model path '" + path + "' is not a regular file or a directory: pass a model directory or file (" +
                kExpected + ")");
  if (starts_with_ggml_magic(path)) return ModelFormat::kGgml;
  if (fs::path(path).filename() == "model.bin") return ModelFormat::kCTranslate2;
  throw Error("'" + path + "' is not a model file auris recognises: " + kExpected);
}

ModelData load_model_data(const std::string& path) {
  switch (detect_model_format(path)) {
    case ModelFormat::kCTranslate2: return load_ctranslate2(ct2_dir(path));
    case ModelFormat::kHuggingFace: return load_huggingface(path);
    case ModelFormat::kGgml: return load_ggml(path);
  }
  throw Error("unreachable model format");
}

}  // namespace auris
