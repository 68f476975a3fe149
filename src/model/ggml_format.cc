#include "model/ggml_format.h"

#include <cstdio>
#include <iterator>

#include "auris/error.h"

namespace auris {
namespace {

// whisper.cpp stores ftype + 1000 * quantisation version; the model-level ftype values
// (llama_ftype) differ from the per-tensor ggml_type codes.
std::string ftype_name(int32_t ftype) {
  switch (ftype) {
    case 0: return "f32";
    case 1: return "f16";
    case 2: return "q4_0";
    case 3: return "q4_1";
    case 7: return "q8_0";
    case 8: return "q5_0";
    case 9: return "q5_1";
    default: return "quantised type " + std::to_string(ftype);
  }
}

int32_t read_int(ByteReader& in, const std::string& path, const char* field, int32_t min, int32_t max) {
  const int32_t v = in.read<int32_t>();
  if (v < min || v > max)
    throw Error("ggml file '" + path + "' has " + field + " = " + std::to_string(v) + ", expected " + std::to_string(min) +
                ".." + std::to_string(max) + ": the file is corrupted or not a Whisper ggml model");
  return v;
}

}  // namespace

std::string ggml_type_name(int32_t type) {
  static const char* const kNames[] = {"f32",  "f16",  "q4_0", "q4_1", "q4_2", "q4_3", "q5_0", "q5_1",
                                       "q8_0", "q8_1", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "q8_k"};
  if (type >= 0 && type < static_cast<int32_t>(std::size(kNames))) return kNames[type];
  return "type " + std::to_string(type);
}

GgmlHeader read_ggml_header(ByteReader& in, const std::string& path) {
  const uint32_t magic = in.read<uint32_t>();
  if (magic != kGgmlMagic) {
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", magic);
    throw Error("'" + path + "' is not a whisper.cpp ggml model (magic 0x" + hex + ", expected 0x67676d6c" +
                (magic == 0x46554747 ? "; this is a GGUF file, which auris does not read" : "") + ")");
  }
  GgmlHeader h;
  ModelDims& d = h.dims;
  d.n_vocab = read_int(in, path, "n_vocab", 51864, 51866);
  d.n_audio_ctx = read_int(in, path, "n_audio_ctx", 1, 1 << 16);
  d.n_audio_state = read_int(in, path, "n_audio_state", 1, 1 << 16);
  d.n_audio_head = read_int(in, path, "n_audio_head", 1, 1024);
  d.n_audio_layer = read_int(in, path, "n_audio_layer", 1, 1024);
  d.n_text_ctx = read_int(in, path, "n_text_ctx", 1, 1 << 16);
  d.n_text_state = read_int(in, path, "n_text_state", 1, 1 << 16);
  d.n_text_head = read_int(in, path, "n_text_head", 1, 1024);
  d.n_text_layer = read_int(in, path, "n_text_layer", 1, 1024);
  d.n_mels = read_int(in, path, "n_mels", 1, 1024);
  h.ftype = in.read<int32_t>();
  const int32_t base_ftype = h.ftype % 1000;
  if (h.ftype < 0 || (base_ftype != kGgmlFileF32 && base_ftype != kGgmlFileF16 && base_ftype != kGgmlFileQ8_0 &&
                      base_ftype != kGgmlFileQ4_0))
    throw Error("ggml file '" + path + "' is quantised (" + ftype_name(base_ftype) +
                "); auris loads f32, f16, q8_0 and q4_0 ggml files: use one of those, or another format");

  h.n_mel_filters = read_int(in, path, "mel filter count", 0, 1024);
  h.n_fft_bins = read_int(in, path, "mel filter width", 0, 1 << 16);
  const uint64_t n_filter = uint64_t(h.n_mel_filters) * uint64_t(h.n_fft_bins);
  in.require(n_filter * 4);
  h.mel_filters.resize(n_filter);
  for (float& f : h.mel_filters) f = in.read<float>();

  const int32_t n_tokens = read_int(in, path, "vocabulary size", 0, d.n_vocab);
  for (int32_t i = 0; i < n_tokens; ++i) {
    const uint32_t length = in.read<uint32_t>();
    if (length > 1024) throw Error("ggml file '" + path + "' token " + std::to_string(i) + " claims " + std::to_string(length) + " bytes: the file is corrupted");
    h.vocab.push_back(in.read_string(length));
  }
  return h;
}

}  // namespace auris
