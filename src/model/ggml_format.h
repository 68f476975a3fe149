// whisper.cpp's ggml model file (models/convert-pt-to-ggml.py): uint32 magic "ggml"; int32 hparams
// n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx, n_text_state,
// n_text_head, n_text_layer, n_mels, ftype; mel filters (int32 n_mel, int32 n_fft, float data);
// vocabulary (int32 count, then uint32 length + bytes each); tensors until EOF: int32 n_dims,
// int32 name length, int32 type, int32 ne[n_dims] (innermost first), name, data.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/model_dims.h"
#include "util/byte_reader.h"

namespace auris {

inline constexpr uint32_t kGgmlMagic = 0x67676d6c;  // "ggml"
enum GgmlType : int32_t { kGgmlF32 = 0, kGgmlF16 = 1, kGgmlQ4_0 = 2, kGgmlQ8_0 = 8 };
// The model-level ftype of the hparams (stored plus 1000 times the quantisation version) for a file
// of f32, f16, mostly-q4_0 or mostly-q8_0 tensors: whisper.cpp picks its weight type from it.
enum GgmlFileType : int32_t { kGgmlFileF32 = 0, kGgmlFileF16 = 1, kGgmlFileQ4_0 = 2, kGgmlFileQ8_0 = 7 };
// ggml's quantisation version, which whisper.cpp's `quantize` stores in the ftype of what it writes.
inline constexpr int32_t kGgmlQuantisationVersion = 2;

struct GgmlHeader {
  ModelDims dims;  // from hparams (alignment heads are not stored in ggml files)
  int32_t ftype = 0;
  int32_t n_mel_filters = 0, n_fft_bins = 0;
  std::vector<float> mel_filters;   // [n_mel_filters x n_fft_bins]
  std::vector<std::string> vocab;   // raw token bytes as stored (may end with <|endoftext|>)
};

// Reads the uint32 magic "ggml"; throws auris::Error naming `path` (and a GGUF file as such) otherwise.
void read_ggml_magic(ByteReader& in, const std::string& path);
// Parses everything before the tensors, leaving `in` at the first tensor. Throws auris::Error naming
// `path` for a bad magic, implausible hparams, an ftype auris does not read (it reads f32, f16,
// q8_0 and q4_0), or a truncated file.
GgmlHeader read_ggml_header(ByteReader& in, const std::string& path);

// "f32", "f16", "q4_0", ... for ggml tensor type codes ("type N" when unknown).
std::string ggml_type_name(int32_t type);

// One tensor record of a ggml file (whisper.cpp writes the same records in its Whisper and VAD files).
struct GgmlTensorRecord {
  std::string name;
  std::vector<int64_t> shape;  // row-major (ne reversed); empty for a scalar (n_dims 0)
  int32_t type = kGgmlF32;     // f32, f16, q8_0 or q4_0
  std::span<const uint8_t> data;  // inside the bytes `in` reads
};

// Reads the tensor record at `in`, every size checked against what is left before it is followed.
// Throws auris::Error naming `path` for a corrupted header, a tensor larger than the file, or a
// type auris does not read.
GgmlTensorRecord read_ggml_tensor(ByteReader& in, const std::string& path);
// The record's values as fp32 into out[numel]: f32 and f16 exactly, q8_0 and q4_0 as whisper.cpp
// dequantises them.
void ggml_tensor_values(const GgmlTensorRecord& tensor, float* out);

}  // namespace auris
