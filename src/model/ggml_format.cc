#include "model/ggml_format.h"

#include <cstdio>
#include <cstring>
#include <iterator>

#include "auris/error.h"
#include "model/ggml_blocks.h"
#include "model/half_float.h"

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

void read_ggml_magic(ByteReader& in, const std::string& path) {
  const uint32_t magic = in.read<uint32_t>();
  if (magic != kGgmlMagic) {
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", magic);
    throw Error("'" + path + "' is not a whisper.cpp ggml model (magic 0x" + hex + ", expected 0x67676d6c" +
                (magic == 0x46554747 ? "; this is a GGUF file, which auris does not read" : "") + ")");
  }
}

GgmlHeader read_ggml_header(ByteReader& in, const std::string& path) {
  read_ggml_magic(in, path);
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

GgmlTensorRecord read_ggml_tensor(ByteReader& in, const std::string& path) {
  const int32_t n_dims = in.read<int32_t>();
  const int32_t name_length = in.read<int32_t>();
  const int32_t type = in.read<int32_t>();
  if (n_dims < 0 || n_dims > 4 || name_length < 1 || name_length > 1024)
    throw Error("ggml file '" + path + "' has a corrupted tensor header at offset " + std::to_string(in.position() - 12) +
                " (n_dims " + std::to_string(n_dims) + ", name length " + std::to_string(name_length) + ")");
  GgmlTensorRecord t;
  t.type = type;
  t.shape.resize(static_cast<size_t>(n_dims));
  uint64_t numel = 1;
  for (int i = n_dims - 1; i >= 0; --i) {  // ne[0] is the innermost dimension: reverse to row-major order
    const int32_t ne = in.read<int32_t>();
    if (ne < 1) throw Error("ggml file '" + path + "' has a tensor dimension of " + std::to_string(ne) + ": the file is corrupted");
    t.shape[static_cast<size_t>(i)] = ne;
    numel *= static_cast<uint64_t>(ne);
    // No weight takes less than half a byte: this also keeps numel from overflowing.
    if (numel > 2 * in.remaining()) throw Error("ggml file '" + path + "' has a tensor larger than the file: the file is truncated or corrupted");
  }
  t.name = in.read_string(static_cast<uint64_t>(name_length));
  const size_t block_bytes = ggml_block_bytes(type);
  if (type != kGgmlF32 && type != kGgmlF16 && block_bytes == 0)
    throw Error("ggml file '" + path + "' stores tensor '" + t.name + "' as " + ggml_type_name(type) +
                " (quantised); auris loads f32, f16, q8_0 and q4_0 tensors: use a ggml file of one of those, or another format");
  if (block_bytes != 0 && (t.shape.empty() || t.shape.back() % kGgmlBlockWeights != 0))
    throw Error("ggml file '" + path + "' stores tensor '" + t.name + "' as " + ggml_type_name(type) + " in rows of " +
                std::to_string(t.shape.empty() ? 1 : t.shape.back()) + " weights, not whole blocks of " +
                std::to_string(kGgmlBlockWeights) + ": the file is corrupted");
  t.data = in.read_bytes(ggml_tensor_bytes(type, numel));
  return t;
}

void ggml_tensor_values(const GgmlTensorRecord& tensor, float* out) {
  if (tensor.type == kGgmlF32) {
    std::memcpy(out, tensor.data.data(), tensor.data.size());
  } else if (tensor.type == kGgmlF16) {
    fp16_to_float_n(tensor.data.data(), tensor.data.size() / 2, out);
  } else {
    size_t numel = 1;
    for (int64_t d : tensor.shape) numel *= static_cast<size_t>(d);
    dequantize_ggml_blocks(tensor.type, tensor.data.data(), numel, out);
  }
}

}  // namespace auris
