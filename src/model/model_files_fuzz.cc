// A libFuzzer target over the files a user hands auris as a model, run by scripts/fuzz.sh (and its
// seeds replayed by ctest through tests/fuzz/replay.cc).
// AURIS_FUZZ_FORMAT picks the file the input becomes:
//   ct2          a CTranslate2 directory's model.bin (beside a fixed config.json and vocabulary)
//   ct2-vocab    that directory's vocabulary.txt (beside a fixed model.bin)
//   safetensors  a Hugging Face directory's model.safetensors (beside a fixed config.json, vocabulary)
//   hf-config    that directory's config.json (beside a fixed model.safetensors)
//   hf-vocab     that directory's vocab.json
//   ggml         a whisper.cpp ggml model file
//   vad          whisper.cpp's ggml file of Silero VAD
// Every input must load or throw auris::Error: any other exception, a crash or a sanitizer report is
// a finding. With AURIS_FUZZ_SEEDS=DIR the program instead writes a seed corpus for each format to
// DIR/FORMAT/ (the synthetic test model in each storage type) and exits.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>

#include "auris/error.h"
#include "fuzz/fuzz_support.h"
#include "model/model_loader.h"
#include "model/model_test_util.h"
#include "vad/ggml_vad_file.h"

namespace {

using namespace auris;

enum class Format { kCt2, kCt2Vocab, kSafetensors, kHfConfig, kHfVocab, kGgml, kVad };

struct Target {
  Format format;
  std::string file;  // where the input is written
  std::string load;  // what is loaded
};

Format format_from_environment() {
  const char* name = std::getenv("AURIS_FUZZ_FORMAT");
  const std::string f = name ? name : "";
  if (f == "ct2") return Format::kCt2;
  if (f == "ct2-vocab") return Format::kCt2Vocab;
  if (f == "safetensors") return Format::kSafetensors;
  if (f == "hf-config") return Format::kHfConfig;
  if (f == "hf-vocab") return Format::kHfVocab;
  if (f == "ggml") return Format::kGgml;
  if (f == "vad") return Format::kVad;
  std::fprintf(stderr, "set AURIS_FUZZ_FORMAT to ct2, ct2-vocab, safetensors, hf-config, hf-vocab, ggml or vad\n");
  std::exit(2);
}

std::string fixture_directory() { return fuzz::private_path("model"); }

// The fixed side files of a directory format, in fixture_directory() (removed at a normal exit).
Target make_target(Format format) {
  const std::string dir = fixture_directory();
  std::atexit([] { std::filesystem::remove_all(fixture_directory()); });
  const ModelData model = test::synthetic_model();
  switch (format) {
    case Format::kCt2:
      test::write_ct2_dir(model, dir, test::Ct2Storage::kFloat32);
      return {format, dir + "/model.bin", dir};
    case Format::kCt2Vocab:
      test::write_ct2_dir(model, dir, test::Ct2Storage::kFloat32);
      return {format, dir + "/vocabulary.txt", dir};
    case Format::kSafetensors:
      write_huggingface(model, dir);
      return {format, dir + "/model.safetensors", dir};
    case Format::kHfConfig:
      write_huggingface(model, dir);
      return {format, dir + "/config.json", dir};
    case Format::kHfVocab:
      write_huggingface(model, dir);
      return {format, dir + "/vocab.json", dir};
    case Format::kGgml:
    case Format::kVad:
      std::filesystem::create_directories(dir);
      return {format, dir + "/model.bin", dir + "/model.bin"};
  }
  std::abort();
}

void write_seeds(const std::string& root) {
  const ModelData model = test::synthetic_model();
  const std::string scratch = root + "/scratch";
  auto copy = [&](const std::string& from, const std::string& format, const std::string& name) {
    std::filesystem::create_directories(root + "/" + format);
    std::filesystem::copy_file(from, root + "/" + format + "/" + name, std::filesystem::copy_options::overwrite_existing);
  };
  const std::pair<test::Ct2Storage, const char*> storages[] = {
      {test::Ct2Storage::kFloat32, "float32"}, {test::Ct2Storage::kFloat16, "float16"}, {test::Ct2Storage::kInt8, "int8"}};
  for (const auto& [storage, name] : storages) {
    test::write_ct2_dir(model, scratch + "/ct2", storage);
    copy(scratch + "/ct2/model.bin", "ct2", name);
  }
  copy(scratch + "/ct2/vocabulary.txt", "ct2-vocab", "vocabulary");
  for (const bool half : {false, true}) {
    write_huggingface(model, scratch + "/hf", half);
    copy(scratch + "/hf/model.safetensors", "safetensors", half ? "f16" : "f32");
  }
  copy(scratch + "/hf/config.json", "hf-config", "config");
  copy(scratch + "/hf/vocab.json", "hf-vocab", "vocab");
  const std::pair<GgmlWeights, const char*> ggml_types[] = {
      {GgmlWeights::kFloat32, "f32"}, {GgmlWeights::kFloat16, "f16"}, {GgmlWeights::kQ8_0, "q8_0"}, {GgmlWeights::kQ4_0, "q4_0"}};
  const ModelData wider = test::synthetic_model(51864, 32);  // whole blocks of 32 for q8_0 and q4_0
  for (const auto& [type, name] : ggml_types) {
    write_ggml(type == GgmlWeights::kFloat32 || type == GgmlWeights::kFloat16 ? model : wider, scratch + "/model.ggml", type);
    copy(scratch + "/model.ggml", "ggml", name);
  }
  std::filesystem::remove_all(scratch);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Target target = make_target(format_from_environment());
  test::write_file(target.file, std::string(reinterpret_cast<const char*>(data), size));
  try {
    if (target.format == Format::kVad)
      read_ggml_vad(target.load);
    else
      load_model_data(target.load);
  } catch (const Error&) {
    // A clear refusal: what a hostile file must get.
  }
  return 0;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) { return fuzz::write_seeds_if_asked(write_seeds); }
