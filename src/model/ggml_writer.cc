// Writes a ModelData as a whisper.cpp ggml file, the way models/convert-pt-to-ggml.py does, so
// whisper.cpp loads it: with half, 2-D+ weights are f16 while biases, norms, conv biases and the
// positional embeddings stay f32 (whisper.cpp creates those tensors as f32).
#include <fstream>

#include "auris/error.h"
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

bool stays_f32(const std::string& name, const Tensor& t) {
  return t.rank() < 2 || name == "encoder.positional_embedding" || name == "decoder.positional_embedding";
}

}  // namespace

void write_ggml(const ModelData& model, const std::string& file, bool half) {
  const ModelDims& d = model.dims;
  validate_weights(model.weights, d, "model to write");
  const int n_regular = regular_token_count(d);
  if (static_cast<int>(model.vocab.size()) != n_regular)
    throw Error("model to write has " + std::to_string(model.vocab.size()) + " vocabulary tokens, expected " + std::to_string(n_regular));

  Writer w(file);
  w.put<uint32_t>(kGgmlMagic);
  for (int v : {d.n_vocab, d.n_audio_ctx, d.n_audio_state, d.n_audio_head, d.n_audio_layer, d.n_text_ctx, d.n_text_state,
                d.n_text_head, d.n_text_layer, d.n_mels, half ? 1 : 0})
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
    const bool f16 = half && !stays_f32(spec.name, t);
    w.put<int32_t>(static_cast<int32_t>(shape.size()));
    w.put<int32_t>(static_cast<int32_t>(spec.name.size()));
    w.put<int32_t>(f16 ? kGgmlF16 : kGgmlF32);
    for (auto it = shape.rbegin(); it != shape.rend(); ++it) w.put<int32_t>(static_cast<int32_t>(*it));
    w.bytes(spec.name.data(), spec.name.size());
    if (f16) {
      std::vector<uint16_t> h(t.data.size());
      for (size_t i = 0; i < h.size(); ++i) h[i] = float_to_fp16(t.data[i]);
      w.bytes(h.data(), h.size() * 2);
    } else {
      w.bytes(t.data.data(), t.data.size() * 4);
    }
  }
  w.finish();
}

}  // namespace auris
