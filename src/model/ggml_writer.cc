// Writes a ModelData as a whisper.cpp ggml file, the way models/convert-pt-to-ggml.py does, so
// whisper.cpp loads it: in f16, 2-D+ weights are f16 while biases, norms, conv biases and the
// positional embeddings stay f32 (whisper.cpp creates those tensors as f32). Quantised, the 2-D
// weights are q8_0 or q4_0 blocks as whisper.cpp's `quantize` writes them (ggml_blocks.h) and the
// 3-D convolution weights f16.
#include <fstream>

#include "auris/error.h"
#include "model/ggml_blocks.h"
#include "model/ggml_format.h"
#include "model/half_float.h"
#include "model/model_loader.h"
#include "audio/mel_filters.h"
#include "model/weight_layout.h"

namespace auris {
namespace {

class Writer {
 public:
  explicit Writer(const std::string& path) : path_(path), out_(path, std::ios::binary) {
    if (!out_) throw Error("cannot write '" + path + "': check the directory exists and is writable");
  }
  template <typename T>
  void put(T value) {
    out_.write(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void bytes(const void* data, size_t n) { out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(n)); }
  void finish() {
    if (!out_.flush()) throw Error("failed writing '" + path_ + "': the disk may be full");
  }

 private:
  std::string path_;
  std::ofstream out_;
};

// The ggml type a tensor is stored as.
GgmlType stored_type(const std::string& name, const Tensor& t, GgmlWeights weights) {
  if (t.rank() < 2 || name == "encoder.positional_embedding" || name == "decoder.positional_embedding") return kGgmlF32;
  switch (weights) {
    case GgmlWeights::kFloat32: return kGgmlF32;
    case GgmlWeights::kFloat16: return kGgmlF16;
    case GgmlWeights::kQ8_0: return t.rank() == 2 ? kGgmlQ8_0 : kGgmlF16;
    case GgmlWeights::kQ4_0: return t.rank() == 2 ? kGgmlQ4_0 : kGgmlF16;
  }
  return kGgmlF32;
}

int32_t file_type(GgmlWeights weights) {
  switch (weights) {
    case GgmlWeights::kFloat32: return kGgmlFileF32;
    case GgmlWeights::kFloat16: return kGgmlFileF16;
    case GgmlWeights::kQ8_0: return kGgmlQuantisationVersion * 1000 + kGgmlFileQ8_0;
    case GgmlWeights::kQ4_0: return kGgmlQuantisationVersion * 1000 + kGgmlFileQ4_0;
  }
  return kGgmlFileF32;
}

}  // namespace

void write_ggml(const ModelData& model, const std::string& file, GgmlWeights weights) {
  const ModelDims& d = model.dims;
  validate_weights(model.weights, d, "model to write");
  const int n_regular = regular_token_count(d);
  if (static_cast<int>(model.vocab.size()) != n_regular)
    throw Error("model to write has " + std::to_string(model.vocab.size()) + " vocabulary tokens, expected " + std::to_string(n_regular));
  for (const WeightSpec& spec : expected_weights(d)) {  // before the file exists: no half-written file
    const Tensor& t = model.weights.get(spec.name);
    const GgmlType type = stored_type(spec.name, t, weights);
    if (ggml_block_bytes(type) != 0 && t.shape.back() % kGgmlBlockWeights != 0)
      throw Error("cannot write " + ggml_type_name(type) + ": tensor '" + spec.name + "' has rows of " +
                  std::to_string(t.shape.back()) + " weights, and " + ggml_type_name(type) + " stores whole blocks of " +
                  std::to_string(kGgmlBlockWeights) + " (write f16 or f32 instead)");
  }

  Writer w(file);
  w.put<uint32_t>(kGgmlMagic);
  for (int v : {d.n_vocab, d.n_audio_ctx, d.n_audio_state, d.n_audio_head, d.n_audio_layer, d.n_text_ctx, d.n_text_state,
                d.n_text_head, d.n_text_layer, d.n_mels, file_type(weights)})
    w.put<int32_t>(v);

  const std::vector<float>& filters = mel_filters(d.n_mels).weights;
  w.put<int32_t>(d.n_mels);
  w.put<int32_t>(static_cast<int32_t>(filters.size() / static_cast<size_t>(d.n_mels)));
  w.bytes(filters.data(), filters.size() * 4);

  w.put<int32_t>(n_regular);
  for (const std::string& token : model.vocab) {
    w.put<uint32_t>(static_cast<uint32_t>(token.size()));
    w.bytes(token.data(), token.size());
  }

  for (const WeightSpec& spec : expected_weights(d)) {
    const Tensor& t = model.weights.get(spec.name);
    std::vector<int64_t> shape = t.shape;
    if (spec.name == "encoder.conv1.bias" || spec.name == "encoder.conv2.bias") shape.push_back(1);
    const GgmlType type = stored_type(spec.name, t, weights);
    w.put<int32_t>(static_cast<int32_t>(shape.size()));
    w.put<int32_t>(static_cast<int32_t>(spec.name.size()));
    w.put<int32_t>(type);
    for (auto it = shape.rbegin(); it != shape.rend(); ++it) w.put<int32_t>(static_cast<int32_t>(*it));
    w.bytes(spec.name.data(), spec.name.size());
    if (type == kGgmlF16) {
      std::vector<uint16_t> h(t.data.size());
      for (size_t i = 0; i < h.size(); ++i) h[i] = float_to_fp16(t.data[i]);
      w.bytes(h.data(), h.size() * 2);
    } else if (type == kGgmlF32) {
      w.bytes(t.data.data(), t.data.size() * 4);
    } else {
      std::vector<uint8_t> blocks(ggml_tensor_bytes(type, t.data.size()));
      quantize_ggml_blocks(type, t.data.data(), t.data.size(), blocks.data());
      w.bytes(blocks.data(), blocks.size());
    }
  }
  w.finish();
}

}  // namespace auris
