// CTranslate2 Whisper directories (faster-whisper): model.bin + config.json + vocabulary.{txt,json}.
// model.bin layout (python/ctranslate2/specs/model_spec.py, binary versions 1..6): uint32 version;
// [v>=2] spec name, uint32 revision; uint32 count; per variable: name, uint8 rank, uint32 dims[rank],
// [v>=4] uint8 dtype + uint32 byte count | [v<4] uint8 item size + uint32 element count, data;
// [v>=3] uint32 alias count, (alias, target) names. Strings: uint16 length incl. NUL, bytes.
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>

#include "auris/error.h"
#include "model/half_float.h"
#include "model/model_json.h"
#include "model/model_loader.h"
#include "model/model_registry.h"
#include "model/weight_layout.h"
#include "util/byte_reader.h"
#include "util/mapped_file.h"

namespace fs = std::filesystem;

namespace auris {
namespace {

constexpr uint32_t kNewestBinaryVersion = 6;
enum Ct2Type : uint8_t { kF32 = 0, kI8 = 1, kI16 = 2, kI32 = 3, kF16 = 4, kBF16 = 5 };
constexpr int kItemSize[] = {4, 1, 2, 4, 2, 2};
constexpr const char* kTypeName[] = {"float32", "int8", "int16", "int32", "float16", "bfloat16"};

struct Variable {
  std::vector<int64_t> shape;
  uint8_t type = kF32;
  std::span<const uint8_t> data;
};

class Ct2Model {
 public:
  Ct2Model(std::shared_ptr<const MappedFile> file, const std::string& path) : file_(std::move(file)), path_(path) {
    ByteReader in(file_->bytes(), "'" + path + "'");
    const uint32_t version = in.read<uint32_t>();
    // CTranslate2 has written versions 1 to 6 in six years: a number far past them is not a version.
    if (version == 0 || version > kNewestBinaryVersion + 100)
      throw Error("'" + path + "' is not a CTranslate2 model.bin (it starts with " + std::to_string(version) +
                  " where a binary version should be): the file is damaged or of another kind");
    if (version > kNewestBinaryVersion)
      throw Error("'" + path + "' has CTranslate2 binary version " + std::to_string(version) + ", auris reads versions 1.." +
                  std::to_string(kNewestBinaryVersion) + ": convert the model with an older ctranslate2");
    if (version >= 2) {
      const std::string spec = read_name(in);
      in.read<uint32_t>();  // spec revision
      if (spec != "WhisperSpec")
        throw Error("'" + path + "' is a CTranslate2 '" + spec + "' model, not a Whisper model");
    }
    const uint32_t count = in.read<uint32_t>();
    for (uint32_t i = 0; i < count; ++i) {
      std::string name = read_name(in);
      Variable v;
      const uint8_t rank = in.read<uint8_t>();
      if (rank > 4) throw Error(where(name) + "has rank " + std::to_string(rank) + ", at most 4 is valid: the file is corrupted");
      uint64_t numel = 1;
      for (int d = 0; d < rank; ++d) {
        const uint32_t dim = in.read<uint32_t>();
        v.shape.push_back(dim);
        numel *= dim;
        if (numel > file_->bytes().size()) throw Error(where(name) + "claims more elements than the file holds: the file is truncated or corrupted");
      }
      uint64_t num_bytes;
      if (version >= 4) {
        v.type = in.read<uint8_t>();
        if (v.type > kBF16) throw Error(where(name) + "has unknown data type code " + std::to_string(v.type) + ": the file is corrupted or too new");
        num_bytes = in.read<uint32_t>();
      } else {
        const uint8_t item = in.read<uint8_t>();
        if (item != 1 && item != 2 && item != 4) throw Error(where(name) + "has unknown item size " + std::to_string(item));
        v.type = item == 4 ? kF32 : item == 2 ? kI16 : kI8;
        num_bytes = uint64_t{in.read<uint32_t>()} * item;
      }
      if (num_bytes != numel * kItemSize[v.type])
        throw Error(where(name) + "holds " + std::to_string(num_bytes) + " bytes but its shape and type need " +
                    std::to_string(numel * kItemSize[v.type]) + ": the file is corrupted");
      v.data = in.read_bytes(num_bytes);
      variables_[std::move(name)] = std::move(v);
    }
    if (version >= 3) {
      const uint32_t aliases = in.read<uint32_t>();
      for (uint32_t i = 0; i < aliases; ++i) {
        std::string alias = read_name(in);
        aliases_[std::move(alias)] = read_name(in);
      }
    }
  }

  bool has(const std::string& name) const { return find(name) != nullptr; }

  const Variable& get(const std::string& name) const {
    const Variable* v = find(name);
    if (!v) throw Error("'" + path_ + "' is missing variable '" + name + "': the file is incomplete or not a Whisper model");
    return *v;
  }

  // The shape of a weight variable, after checking that it can be decoded (a float type, or an
  // integer type with a valid scale), so that decoding it later cannot fail.
  const std::vector<int64_t>& weight_shape(const std::string& name) const {
    const Variable& v = get(name);
    if (v.type == kI8 || v.type == kI16) {
      scales(name, v);
    } else if (v.type != kF32 && v.type != kF16 && v.type != kBF16) {
      throw Error(where(name) + "is stored as " + kTypeName[v.type] + ", which is not a weight type");
    }
    return v.shape;
  }

  // The variable as fp32.
  Tensor tensor(const std::string& name) const {
    const Variable& v = get(name);
    return rows(name, 0, v.shape.empty() ? 1 : v.shape[0]);
  }

  // Rows [first, first + count) of the variable as fp32, dequantising int8/int16 with its
  // "<name>_scale" (CTranslate2 stores q = round(w * scale), per output row for int8). The rows' pages
  // of the file are dropped from memory afterwards.
  Tensor rows(const std::string& name, int64_t first, int64_t count) const {
    const Variable& v = get(name);
    const int64_t total_rows = v.shape.empty() ? 1 : v.shape[0];
    if (first < 0 || count < 0 || first + count > total_rows) throw Error(where(name) + "has no rows " + std::to_string(first) + ".." + std::to_string(first + count));
    const size_t total = static_cast<size_t>(Tensor::count(v.shape));
    const size_t row = total_rows == 0 ? 0 : total / static_cast<size_t>(total_rows);
    std::vector<int64_t> shape = v.shape;
    if (!shape.empty()) shape[0] = count;
    Tensor t(shape);
    const size_t n = t.data.size();
    if (n == 0) return t;
    const size_t begin = static_cast<size_t>(first) * row;
    const size_t item = static_cast<size_t>(kItemSize[v.type]);
    const uint8_t* p = v.data.data() + begin * item;
    switch (v.type) {
      case kF32: std::memcpy(t.data.data(), p, n * 4); break;
      case kF16: fp16_to_float_n(p, n, t.data.data()); break;
      case kBF16:
        for (size_t i = 0; i < n; ++i) t.data[i] = bf16_to_float(load<uint16_t>(p, i));
        break;
      case kI8:
      case kI16: {
        const std::vector<float> scale = scales(name, v);
        const size_t scale_row = scale.size() == 1 ? total : total / scale.size();
        for (size_t i = 0; i < n; ++i) {
          const float q = v.type == kI8 ? static_cast<float>(static_cast<int8_t>(p[i])) : static_cast<float>(load<int16_t>(p, i));
          t.data[i] = q / scale[(begin + i) / scale_row];
        }
        break;
      }
      default: throw Error(where(name) + "is stored as " + kTypeName[v.type] + ", which is not a weight type");
    }
    file_->release(v.data.subspan(begin * item, n * item));
    return t;
  }

  // An integer scalar such as encoder/num_heads; fallback when absent.
  int scalar(const std::string& name, int fallback) const {
    const Variable* v = find(name);
    if (!v) return fallback;
    if (Tensor::count(v->shape) != 1) throw Error(where(name) + "should be a scalar");
    switch (v->type) {
      case kI8: return static_cast<int8_t>(v->data[0]);
      case kI16: return load<int16_t>(v->data.data(), 0);
      case kI32: return load<int32_t>(v->data.data(), 0);
      default: throw Error(where(name) + "should be an integer, it is " + kTypeName[v->type]);
    }
  }

 private:
  template <typename T>
  static T load(const uint8_t* p, size_t i) {
    T value;
    std::memcpy(&value, p + i * sizeof(T), sizeof(T));
    return value;
  }

  static std::string read_name(ByteReader& in) {
    const uint16_t length = in.read<uint16_t>();
    std::string s = in.read_string(length);
    const size_t nul = s.find('\0');
    if (nul != std::string::npos) s.resize(nul);
    return s;
  }

  std::string where(const std::string& name) const { return "'" + path_ + "' variable '" + name + "' "; }

  const Variable* find(const std::string& name) const {
    auto it = variables_.find(name);
    if (it != variables_.end()) return &it->second;
    auto alias = aliases_.find(name);
    if (alias == aliases_.end()) return nullptr;
    it = variables_.find(alias->second);
    return it == variables_.end() ? nullptr : &it->second;
  }

  std::vector<float> scales(const std::string& name, const Variable& v) const {
    // Aliased weights share their target's scale.
    std::string scale_name = name + "_scale";
    auto alias = aliases_.find(name);
    if (!has(scale_name) && alias != aliases_.end()) scale_name = alias->second + "_scale";
    if (!has(scale_name))
      throw Error(where(name) + "is quantised (" + kTypeName[v.type] + ") but '" + name + "_scale' is missing: the file is incomplete");
    const Tensor scale = tensor(scale_name);
    const int64_t rows = v.shape.empty() ? 1 : v.shape[0];
    if (scale.numel() != 1 && scale.numel() != rows)
      throw Error(where(scale_name) + "has " + std::to_string(scale.numel()) + " values for " + std::to_string(rows) + " rows");
    for (float x : scale.data)
      if (!(std::isfinite(x) && x != 0.0f)) throw Error(where(scale_name) + "holds a zero or non-finite scale: the file is corrupted");
    return scale.data;
  }

  std::shared_ptr<const MappedFile> file_;
  std::string path_;
  std::map<std::string, Variable> variables_;
  std::map<std::string, std::string> aliases_;
};

// Registers CTranslate2's variables under the canonical names, deferred: each decodes (and drops
// its pages of the file) only when the engine takes it.
class Converter {
 public:
  Converter(std::shared_ptr<const Ct2Model> model, const std::string& path) : model_(std::move(model)), path_(path) {}

  void copy(const std::string& canonical, const std::string& ct2) {
    weights.put_deferred(canonical, model_->weight_shape(ct2), [model = model_, ct2] { return model->tensor(ct2); });
  }

  void norm(const std::string& canonical, const std::string& ct2) {
    copy(canonical + ".weight", ct2 + "/gamma");
    copy(canonical + ".bias", ct2 + "/beta");
  }

  void linear(const std::string& canonical, const std::string& ct2) {
    copy(canonical + ".weight", ct2 + "/weight");
    copy(canonical + ".bias", ct2 + "/bias");
  }

  // A fused projection [parts * d, d] split into canonical parts, each part's weight a range of rows;
  // "key" carries no bias in Whisper, so its slice of the fused bias must be zero.
  void fused(const std::string& ct2, const std::vector<std::string>& parts) {
    const std::string weight = ct2 + "/weight";
    const std::string bias = ct2 + "/bias";
    const std::vector<int64_t> w = model_->weight_shape(weight);
    const std::vector<int64_t> b = model_->weight_shape(bias);
    const int64_t n = static_cast<int64_t>(parts.size());
    if (w.size() != 2 || w[0] % n != 0 || b.size() != 1 || b[0] != w[0])
      throw Error("'" + path_ + "' variable '" + ct2 + "' has shape " + shape_string(w) + " / bias " + shape_string(b) +
                  ", expected a fused [" + std::to_string(n) + "*d, d] projection");
    const int64_t d = w[0] / n;
    for (int64_t i = 0; i < n; ++i) {
      const std::string& name = parts[static_cast<size_t>(i)];
      weights.put_deferred(name + ".weight", {d, w[1]}, [model = model_, weight, i, d] { return model->rows(weight, i * d, d); });
      Tensor bias_part = model_->rows(bias, i * d, d);  // a few values: read now, to check the key's
      if (name.ends_with(".key")) {
        for (float x : bias_part.data)
          if (x != 0.0f) throw Error("'" + path_ + "' variable '" + bias + "' has a non-zero key bias, which Whisper does not have: not a Whisper model");
      } else {
        weights.put(name + ".bias", std::move(bias_part));
      }
    }
  }

  WeightMap weights;

 private:
  std::shared_ptr<const Ct2Model> model_;
  std::string path_;
};

int count_layers(const Ct2Model& model, const std::string& prefix) {
  int n = 0;
  while (model.has(prefix + std::to_string(n) + "/self_attention/linear_0/weight")) ++n;
  return n;
}

std::vector<std::string> read_vocabulary_tokens(const std::string& dir, std::string& file) {
  std::vector<std::string> tokens;
  if (fs::exists(fs::path(dir) / "vocabulary.json")) {
    file = (fs::path(dir) / "vocabulary.json").string();
    const nlohmann::json list = read_json_file(file);
    if (!list.is_array()) throw Error("'" + file + "' should hold a list of tokens");
    for (const auto& token : list) {
      if (!token.is_string()) throw Error("'" + file + "' holds a non-string token " + token.dump());
      tokens.push_back(token.get<std::string>());
    }
    return tokens;
  }
  file = (fs::path(dir) / "vocabulary.txt").string();
  if (!fs::exists(file))
    throw Error("'" + dir + "' has no vocabulary.txt or vocabulary.json: copy the vocabulary file that came with model.bin");
  const std::string text = read_text_file(file);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    tokens.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return tokens;
}

}  // namespace

ModelData load_ctranslate2(const std::string& dir) {
  const std::string bin = (fs::path(dir) / "model.bin").string();
  if (!fs::exists(bin)) throw Error("'" + dir + "' has no model.bin: it is not a CTranslate2 model directory");
  const auto shared_model = std::make_shared<const Ct2Model>(std::make_shared<const MappedFile>(bin), bin);
  const Ct2Model& model = *shared_model;

  Converter c(shared_model, bin);
  c.linear("encoder.conv1", "encoder/conv1");
  c.linear("encoder.conv2", "encoder/conv2");
  c.copy("encoder.positional_embedding", "encoder/position_encodings/encodings");
  const int n_audio_layer = count_layers(model, "encoder/layer_");
  for (int i = 0; i < n_audio_layer; ++i) {
    const std::string ct2 = "encoder/layer_" + std::to_string(i) + "/";
    const std::string to = "encoder.blocks." + std::to_string(i) + ".";
    c.norm(to + "attn_ln", ct2 + "self_attention/layer_norm");
    c.fused(ct2 + "self_attention/linear_0", {to + "attn.query", to + "attn.key", to + "attn.value"});
    c.linear(to + "attn.out", ct2 + "self_attention/linear_1");
    c.norm(to + "mlp_ln", ct2 + "ffn/layer_norm");
    c.linear(to + "mlp.0", ct2 + "ffn/linear_0");
    c.linear(to + "mlp.2", ct2 + "ffn/linear_1");
  }
  c.norm("encoder.ln_post", "encoder/layer_norm");
  c.copy("decoder.token_embedding.weight", "decoder/embeddings/weight");
  c.copy("decoder.positional_embedding", "decoder/position_encodings/encodings");
  const int n_text_layer = count_layers(model, "decoder/layer_");
  for (int i = 0; i < n_text_layer; ++i) {
    const std::string ct2 = "decoder/layer_" + std::to_string(i) + "/";
    const std::string to = "decoder.blocks." + std::to_string(i) + ".";
    c.norm(to + "attn_ln", ct2 + "self_attention/layer_norm");
    c.fused(ct2 + "self_attention/linear_0", {to + "attn.query", to + "attn.key", to + "attn.value"});
    c.linear(to + "attn.out", ct2 + "self_attention/linear_1");
    c.norm(to + "cross_attn_ln", ct2 + "attention/layer_norm");
    c.linear(to + "cross_attn.query", ct2 + "attention/linear_0");
    c.fused(ct2 + "attention/linear_1", {to + "cross_attn.key", to + "cross_attn.value"});
    c.linear(to + "cross_attn.out", ct2 + "attention/linear_2");
    c.norm(to + "mlp_ln", ct2 + "ffn/layer_norm");
    c.linear(to + "mlp.0", ct2 + "ffn/linear_0");
    c.linear(to + "mlp.2", ct2 + "ffn/linear_1");
  }
  c.norm("decoder.ln", "decoder/layer_norm");

  ModelData out;
  try {
    out.dims = infer_dims(c.weights, model.scalar("encoder/num_heads", 0), model.scalar("decoder/num_heads", 0));
  } catch (const Error& e) {
    throw Error("'" + bin + "': " + e.what());
  }
  validate_weights(c.weights, out.dims, bin);
  out.weights = std::move(c.weights);

  const std::string config = (fs::path(dir) / "config.json").string();
  out.dims.alignment_heads = alignment_heads_or_default(read_optional_json_object(config), out.dims, config);

  std::string vocab_file;
  const std::vector<std::string> tokens = read_vocabulary_tokens(dir, vocab_file);
  out.vocab = regular_vocab_from_unicode(tokens, regular_token_count(out.dims), vocab_file);
  return out;
}

}  // namespace auris
