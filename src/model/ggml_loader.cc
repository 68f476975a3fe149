// whisper.cpp ggml files (layout in ggml_format.h): f32, f16, q8_0 and q4_0 tensors (ggml_blocks.h)
// under openai/whisper's names, conv biases stored as [n_state, 1]. Other quantised tensors are
// refused by name and type; quantised weights are widened to fp32 when the engine takes them.
#include <memory>

#include "auris/error.h"
#include "model/ggml_format.h"
#include "model/model_loader.h"
#include "model/model_registry.h"
#include "model/weight_layout.h"
#include "util/mapped_file.h"

namespace auris {

ModelData load_ggml(const std::string& file) {
  const auto mapped = std::make_shared<const MappedFile>(file);
  ByteReader in(mapped->bytes(), "ggml file '" + file + "'");
  GgmlHeader header = read_ggml_header(in, file);

  ModelData out;
  out.dims = header.dims;
  while (!in.at_end()) {
    GgmlTensorRecord record = read_ggml_tensor(in, file);
    std::vector<int64_t> shape = record.shape;
    const std::string& name = record.name;
    if (name == "encoder.conv1.bias" || name == "encoder.conv2.bias") {
      if (shape.size() == 2 && shape[1] == 1) shape.pop_back();  // stored as [n_state, 1]
    }
    if (out.weights.has(name)) throw Error("ggml file '" + file + "' holds tensor '" + name + "' twice: the file is corrupted");
    // Decoded when the engine takes it; its pages of the file are dropped then.
    out.weights.put_deferred(name, shape, [mapped, record, shape] {
      Tensor t(shape);
      ggml_tensor_values(record, t.data.data());
      mapped->release(record.data);
      return t;
    });
  }
  validate_weights(out.weights, out.dims, "ggml file '" + file + "'");
  out.dims.alignment_heads = default_alignment_heads(out.dims);

  // Vocabularies converted from tiktoken hold the regular tokens only; older ones end with <|endoftext|>.
  const size_t n_regular = static_cast<size_t>(regular_token_count(out.dims));
  if (header.vocab.size() < n_regular || (header.vocab.size() > n_regular && header.vocab[n_regular] != "<|endoftext|>"))
    throw Error("ggml file '" + file + "' has a vocabulary of " + std::to_string(header.vocab.size()) +
                " tokens that does not fit its " + std::to_string(out.dims.n_vocab) + "-token model (expected " +
                std::to_string(n_regular) + " regular tokens)");
  header.vocab.resize(n_regular);
  out.vocab = std::move(header.vocab);
  return out;
}

}  // namespace auris
