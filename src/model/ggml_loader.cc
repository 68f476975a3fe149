// whisper.cpp ggml files (layout in ggml_format.h): f32, f16, q8_0 and q4_0 tensors (ggml_blocks.h)
// under openai/whisper's names, conv biases stored as [n_state, 1]. Other quantised tensors are
// refused by name and type; quantised weights are widened to fp32 when the engine takes them.
#include <cstring>
#include <memory>

#include "auris/error.h"
#include "model/ggml_blocks.h"
#include "model/ggml_format.h"
#include "model/half_float.h"
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
    const int32_t n_dims = in.read<int32_t>();
    const int32_t name_length = in.read<int32_t>();
    const int32_t type = in.read<int32_t>();
    if (n_dims < 1 || n_dims > 4 || name_length < 1 || name_length > 1024)
      throw Error("ggml file '" + file + "' has a corrupted tensor header at offset " + std::to_string(in.position() - 12) +
                  " (n_dims " + std::to_string(n_dims) + ", name length " + std::to_string(name_length) + ")");
    std::vector<int64_t> shape(static_cast<size_t>(n_dims));
    uint64_t numel = 1;
    for (int i = n_dims - 1; i >= 0; --i) {  // ne[0] is the innermost dimension: reverse to row-major order
      const int32_t ne = in.read<int32_t>();
      if (ne < 1) throw Error("ggml file '" + file + "' has a tensor dimension of " + std::to_string(ne) + ": the file is corrupted");
      shape[static_cast<size_t>(i)] = ne;
      numel *= static_cast<uint64_t>(ne);
      // No weight takes less than half a byte: this also keeps numel from overflowing.
      if (numel > 2 * in.remaining()) throw Error("ggml file '" + file + "' has a tensor larger than the file: the file is truncated or corrupted");
    }
    const std::string name = in.read_string(static_cast<uint64_t>(name_length));
    const size_t block_bytes = ggml_block_bytes(type);
    if (type != kGgmlF32 && type != kGgmlF16 && block_bytes == 0)
      throw Error("ggml file '" + file + "' stores tensor '" + name + "' as " + ggml_type_name(type) +
                  " (quantised); auris loads f32, f16, q8_0 and q4_0 tensors: use a ggml file of one of those, or another format");
    if (block_bytes != 0 && shape.back() % kGgmlBlockWeights != 0)
      throw Error("ggml file '" + file + "' stores tensor '" + name + "' as " + ggml_type_name(type) + " in rows of " +
                  std::to_string(shape.back()) + " weights, not whole blocks of " + std::to_string(kGgmlBlockWeights) +
                  ": the file is corrupted");
    const auto bytes = in.read_bytes(ggml_tensor_bytes(type, numel));
    if (name == "encoder.conv1.bias" || name == "encoder.conv2.bias") {
      if (shape.size() == 2 && shape[1] == 1) shape.pop_back();  // stored as [n_state, 1]
    }
    if (out.weights.has(name)) throw Error("ggml file '" + file + "' holds tensor '" + name + "' twice: the file is corrupted");
    // Decoded when the engine takes it; its pages of the file are dropped then.
    out.weights.put_deferred(name, shape, [mapped, bytes, shape, type] {
      Tensor t(shape);
      if (type == kGgmlF32) {
        std::memcpy(t.data.data(), bytes.data(), bytes.size());
      } else if (type == kGgmlF16) {
        fp16_to_float_n(bytes.data(), bytes.size() / 2, t.data.data());
      } else {
        dequantize_ggml_blocks(type, bytes.data(), t.data.size(), t.data.data());
      }
      mapped->release(bytes);
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
