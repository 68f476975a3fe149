// Test helpers for the model loaders (header-only, used by *_test.cc only): a tiny synthetic Whisper
// model whose weights are all exactly representable in fp16, and a CTranslate2 model.bin writer
// (float32, float16 or int8 + scale, as ctranslate2's model_spec.py writes them).
#pragma once

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "model/half_float.h"
#include "model/model_data.h"
#include "model/weight_layout.h"
#include "tokenizer/byte_unicode.h"

namespace auris::test {

// d=8 (or n_state), 2 heads, 1 encoder and 2 decoder layers, English-only vocabulary of 51864.
inline ModelData synthetic_model(int n_vocab = 51864, int n_state = 8) {
  ModelData m;
  ModelDims& d = m.dims;
  d.n_mels = 80;
  d.n_audio_ctx = 1500;
  d.n_audio_state = d.n_text_state = n_state;
  d.n_audio_head = d.n_text_head = 2;
  d.n_audio_layer = 1;
  d.n_text_layer = 2;
  d.n_vocab = n_vocab;
  d.n_text_ctx = 448;
  d.alignment_heads = {{1, 0}, {1, 1}};
  uint32_t state = 12345;
  for (const WeightSpec& spec : expected_weights(d)) {
    Tensor t(spec.shape);
    for (float& x : t.data) {
      state = state * 1664525u + 1013904223u;
      x = static_cast<float>(static_cast<int>(state >> 22) - 512) / 256.0f;  // k/256 in [-2, 2): exact in fp16
    }
    m.weights.put(spec.name, std::move(t));
  }
  const int n_regular = regular_token_count(d);
  for (int i = 0; i < n_regular; ++i)
    m.vocab.push_back(i < 256 ? std::string(1, static_cast<char>(i)) : "tok" + std::to_string(i));
  return m;
}

enum class Ct2Storage { kFloat32, kFloat16, kInt8 };

class Ct2TestWriter {
 public:
  explicit Ct2TestWriter(Ct2Storage storage) : storage_(storage) {}

  void scalar_i16(const std::string& name, int16_t v) { variable(name, {}, 2, bytes_of(&v, 2)); }

  void tensor(const std::string& name, const Tensor& t) {
    std::vector<uint32_t> shape(t.shape.begin(), t.shape.end());
    const bool quantise = storage_ == Ct2Storage::kInt8 && name.ends_with("weight") && t.rank() == 2;
    if (quantise) {
      const int64_t rows = t.dim(0), cols = t.dim(1);
      std::string q(static_cast<size_t>(rows * cols), '\0');
      std::vector<float> scale(static_cast<size_t>(rows));
      for (int64_t r = 0; r < rows; ++r) {
        float amax = 0;
        for (int64_t c = 0; c < cols; ++c) amax = std::max(amax, std::fabs(t.data[static_cast<size_t>(r * cols + c)]));
        scale[static_cast<size_t>(r)] = amax == 0 ? 1.0f : 127.0f / amax;
        for (int64_t c = 0; c < cols; ++c)
          q[static_cast<size_t>(r * cols + c)] =
              static_cast<char>(static_cast<int8_t>(std::nearbyint(t.data[static_cast<size_t>(r * cols + c)] * scale[static_cast<size_t>(r)])));
      }
      variable(name, shape, 1, q);
      variable(name + "_scale", {static_cast<uint32_t>(rows)}, 0, bytes_of(scale.data(), scale.size() * 4));
    } else if (storage_ == Ct2Storage::kFloat32) {
      variable(name, shape, 0, bytes_of(t.data.data(), t.data.size() * 4));
    } else {
      std::vector<uint16_t> h(t.data.size());
      for (size_t i = 0; i < h.size(); ++i) h[i] = float_to_fp16(t.data[i]);
      variable(name, shape, 4, bytes_of(h.data(), h.size() * 2));
    }
  }

  void alias(const std::string& alias, const std::string& target) { aliases_.emplace_back(alias, target); }

  // Raw access for malformed-file tests.
  void variable(const std::string& name, const std::vector<uint32_t>& shape, uint8_t type, const std::string& data) {
    std::string record(1, static_cast<char>(shape.size()));
    for (uint32_t d : shape) record += bytes_of(&d, 4);
    record.push_back(static_cast<char>(type));
    const uint32_t n = static_cast<uint32_t>(data.size());
    record += bytes_of(&n, 4) + data;
    raw_variable(name, record);
  }

  // Appends one hand-made variable record (name and everything after it).
  void raw_variable(const std::string& name, const std::string& record) { records_.emplace_back(name, record); }

  std::set<std::string> skip;  // variables left out

  void remove(const std::string& name) {
    std::erase_if(records_, [&](const auto& record) { return record.first == name; });
  }

  std::string bytes(uint32_t version = 6) const {
    std::string out = bytes_of(&version, 4);
    string(out, "WhisperSpec");
    const uint32_t revision = 3;
    std::string body;
    uint32_t count = 0;
    for (const auto& [name, record] : records_) {
      if (skip.count(name)) continue;
      string(body, name);
      body += record;
      ++count;
    }
    out += bytes_of(&revision, 4) + bytes_of(&count, 4) + body;
    const uint32_t n_aliases = static_cast<uint32_t>(aliases_.size());
    out += bytes_of(&n_aliases, 4);
    for (const auto& [a, t] : aliases_) {
      string(out, a);
      string(out, t);
    }
    return out;
  }

  static std::string bytes_of(const void* p, size_t n) { return std::string(static_cast<const char*>(p), n); }

 private:
  static void string(std::string& out, const std::string& s) {
    const uint16_t n = static_cast<uint16_t>(s.size() + 1);
    out += bytes_of(&n, 2) + s + '\0';
  }

  Ct2Storage storage_;
  std::vector<std::pair<std::string, std::string>> records_;
  std::vector<std::pair<std::string, std::string>> aliases_;
};

// The model's variables under CTranslate2's Whisper names (fused QKV with a zero key bias).
inline Ct2TestWriter ct2_writer_for(const ModelData& m, Ct2Storage storage) {
  Ct2TestWriter w(storage);
  const WeightMap& W = m.weights;
  auto cat = [](std::vector<const Tensor*> parts, bool zero_first_of_key, int key_index) {
    std::vector<int64_t> shape = parts[0]->shape;
    Tensor out;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (zero_first_of_key && static_cast<int>(i) == key_index) {
        out.data.insert(out.data.end(), parts[i]->data.size(), 0.0f);
      } else {
        out.data.insert(out.data.end(), parts[i]->data.begin(), parts[i]->data.end());
      }
    }
    shape[0] *= static_cast<int64_t>(parts.size());
    out.shape = shape;
    return out;
  };
  auto norm = [&](const std::string& ct2, const std::string& c) {
    w.tensor(ct2 + "/gamma", W.get(c + ".weight"));
    w.tensor(ct2 + "/beta", W.get(c + ".bias"));
  };
  auto linear = [&](const std::string& ct2, const std::string& c) {
    w.tensor(ct2 + "/weight", W.get(c + ".weight"));
    w.tensor(ct2 + "/bias", W.get(c + ".bias"));
  };
  auto self_attention = [&](const std::string& ct2, const std::string& c) {
    norm(ct2 + "/layer_norm", c + "attn_ln");
    w.tensor(ct2 + "/linear_0/weight", cat({&W.get(c + "attn.query.weight"), &W.get(c + "attn.key.weight"), &W.get(c + "attn.value.weight")}, false, -1));
    const Tensor& qb = W.get(c + "attn.query.bias");
    w.tensor(ct2 + "/linear_0/bias", cat({&qb, &qb, &W.get(c + "attn.value.bias")}, true, 1));
    linear(ct2 + "/linear_1", c + "attn.out");
  };
  auto ffn = [&](const std::string& ct2, const std::string& c) {
    norm(ct2 + "/layer_norm", c + "mlp_ln");
    linear(ct2 + "/linear_0", c + "mlp.0");
    linear(ct2 + "/linear_1", c + "mlp.2");
  };
  linear("encoder/conv1", "encoder.conv1");
  linear("encoder/conv2", "encoder.conv2");
  w.tensor("encoder/position_encodings/encodings", W.get("encoder.positional_embedding"));
  w.scalar_i16("encoder/num_heads", static_cast<int16_t>(m.dims.n_audio_head));
  for (int i = 0; i < m.dims.n_audio_layer; ++i) {
    const std::string c = "encoder.blocks." + std::to_string(i) + ".", ct2 = "encoder/layer_" + std::to_string(i);
    self_attention(ct2 + "/self_attention", c);
    ffn(ct2 + "/ffn", c);
  }
  norm("encoder/layer_norm", "encoder.ln_post");
  w.tensor("decoder/embeddings/weight", W.get("decoder.token_embedding.weight"));
  w.alias("decoder/projection/weight", "decoder/embeddings/weight");
  w.tensor("decoder/position_encodings/encodings", W.get("decoder.positional_embedding"));
  w.scalar_i16("decoder/num_heads", static_cast<int16_t>(m.dims.n_text_head));
  for (int i = 0; i < m.dims.n_text_layer; ++i) {
    const std::string c = "decoder.blocks." + std::to_string(i) + ".", ct2 = "decoder/layer_" + std::to_string(i);
    self_attention(ct2 + "/self_attention", c);
    norm(ct2 + "/attention/layer_norm", c + "cross_attn_ln");
    linear(ct2 + "/attention/linear_0", c + "cross_attn.query");
    const Tensor& kb = W.get(c + "cross_attn.value.bias");
    w.tensor(ct2 + "/attention/linear_1/weight", cat({&W.get(c + "cross_attn.key.weight"), &W.get(c + "cross_attn.value.weight")}, false, -1));
    w.tensor(ct2 + "/attention/linear_1/bias", cat({&kb, &kb}, true, 0));
    linear(ct2 + "/attention/linear_2", c + "cross_attn.out");
    ffn(ct2 + "/ffn", c);
  }
  norm("decoder/layer_norm", "decoder.ln");
  return w;
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A complete CTranslate2 directory: model.bin, config.json (alignment heads) and vocabulary.txt.
inline void write_ct2_dir(const ModelData& m, const std::string& dir, Ct2Storage storage,
                          const std::string* model_bin = nullptr) {
  std::filesystem::create_directories(dir);
  write_file(dir + "/model.bin", model_bin ? *model_bin : ct2_writer_for(m, storage).bytes());
  std::string heads;
  for (const auto& [l, h] : m.dims.alignment_heads)
    heads += (heads.empty() ? "" : ", ") + std::string("[") + std::to_string(l) + ", " + std::to_string(h) + "]";
  write_file(dir + "/config.json", "{\"alignment_heads\": [" + heads + "]}\n");
  std::string vocab;
  for (const std::string& token : m.vocab) vocab += bytes_to_gpt2_unicode(token) + "\n";
  vocab += "<|endoftext|>\n";
  write_file(dir + "/vocabulary.txt", vocab);
}

}  // namespace auris::test
