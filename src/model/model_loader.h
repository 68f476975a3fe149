// Loading and writing Whisper checkpoints in the formats users have, all mapped to one ModelData:
//   - CTranslate2 directories (model.bin + config.json + vocabulary.{txt,json}), fp16/fp32/int8(+scale)
//   - Hugging Face directories (config.json + model.safetensors or sharded + index, vocab.json)
//   - whisper.cpp ggml files (f32/f16; quantised types are refused with a clear message)
#pragma once

#include <string>

#include "model/model_data.h"

namespace auris {

enum class ModelFormat { kCTranslate2, kHuggingFace, kGgml };

// Detects the format of a file or directory; throws auris::Error saying what was expected.
ModelFormat detect_model_format(const std::string& path);
// Loads any supported format; throws auris::Error with a message a user can act on.
ModelData load_model_data(const std::string& path);

ModelData load_ctranslate2(const std::string& dir);
ModelData load_huggingface(const std::string& dir);
ModelData load_ggml(const std::string& file);

// Writers for `auris convert`: fp32 tensors by default, fp16 when half is true.
void write_huggingface(const ModelData& model, const std::string& dir, bool half = false);
// How write_ggml stores the weight matrices: as whisper.cpp's convert-pt-to-ggml.py does (f32 or
// f16), or as its `quantize` tool then does (q8_0 or q4_0 blocks, the convolutions' weights in f16).
enum class GgmlWeights { kFloat32, kFloat16, kQ8_0, kQ4_0 };
void write_ggml(const ModelData& model, const std::string& file, GgmlWeights weights = GgmlWeights::kFloat32);

}  // namespace auris
