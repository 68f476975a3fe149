#include "whisper/whisper_model.h"

#include <initializer_list>
#include <optional>
#include <string>

#include "auris/error.h"
#include "kernels/cpu/packed_gemm.h"

namespace auris {
namespace {

class Builder {
 public:
  explicit Builder(ModelData& data) : w_(data.weights) {}

  // Decodes the tensor now (loaders defer it), after checking its shape with a clear message.
  Tensor take(const std::string& name, const std::vector<int64_t>& shape) {
    w_.expect_shape(name, shape);
    return w_.take(name);
  }
  Linear linear(const std::string& prefix, int out, int in, bool has_bias = true) {
    Tensor weight = take(prefix + ".weight", {out, in});
    Tensor bias = has_bias ? take(prefix + ".bias", {out}) : Tensor();
    return Linear(std::move(weight), std::move(bias));
  }
  LayerNormWeights layer_norm(const std::string& prefix, int d) {
    return {take(prefix + ".weight", {d}).data, take(prefix + ".bias", {d}).data};
  }
  // Conv1d weight [out, in, 3] viewed as [out, in*3] (index c*3 + k), as im2col lays out its columns.
  Linear conv(const std::string& prefix, int out, int in) {
    Tensor weight = take(prefix + ".weight", {out, in, 3});
    weight.shape = {out, static_cast<int64_t>(in) * 3};
    return Linear(std::move(weight), take(prefix + ".bias", {out}));
  }
  Linear fused_qkv(const std::string& prefix, int d) {
    Linear q = linear(prefix + ".query", d, d);
    Linear k = linear(prefix + ".key", d, d, /*has_bias=*/false);
    Linear v = linear(prefix + ".value", d, d);
    return Linear::concat({&q, &k, &v});
  }

 private:
  WeightMap& w_;
};

// Converts each part of the model to the compute type's CPU storage as soon as it is assembled, so
// that the fp32 copy of the whole model never exists at once (the peak memory of a load). Without a
// compute type the parts stay fp32 (the CUDA upload reads them).
class StorageConversion {
 public:
  explicit StorageConversion(std::optional<ComputeType> type) : type_(type) {
    // Products over 1500-3000 rows (the encoder, the window's cross K/V) go to oneDNN's packed GEMM:
    // int8 in int8 (as CTranslate2 quantizes them), bf16 for bfloat16 where the CPU has bf16
    // instructions, else fp32 (float16's encoder is float32's: no CPU here multiplies fp16 faster
    // than fp32 with fp32's accuracy). The convolutions of the front end stay in floats.
    const bool bf16_gemm = type && *type == ComputeType::kBfloat16 && PackedGemm::supported(GemmPrecision::kBfloat16);
    floats_ = bf16_gemm ? WeightFormat::kPackedBfloat16 : WeightFormat::kPackedFloat32;
    packed_ = type && has_int8_weights(*type) && PackedGemm::supported(GemmPrecision::kInt8) ? WeightFormat::kPackedInt8
                                                                                                 : floats_;
  }

  void many_rows(std::initializer_list<Linear*> layers) const {
    if (type_)
      for (Linear* l : layers) l->convert(packed_);
  }

  // The front end's convolutions: many rows, in the compute type's float format.
  void convolutions(std::initializer_list<Linear*> layers) const {
    if (type_)
      for (Linear* l : layers) l->convert(floats_);
  }

  // The decode step streams the decoder's weights for a few rows: they are stored in the fewest bytes
  // the compute type allows. float32 keeps fp32 arithmetic and stores fp16 where that is exact (every
  // weight of an fp16 checkpoint): half the bytes, the same products.
  void few_rows(std::initializer_list<Linear*> layers) const {
    if (!type_) return;
    for (Linear* l : layers) {
      switch (*type_) {
        case ComputeType::kInt8:
        case ComputeType::kInt8Bfloat16: l->convert(WeightFormat::kInt8Rows); break;
        case ComputeType::kBfloat16: l->convert(WeightFormat::kBfloat16Rows); break;
        case ComputeType::kFloat32: l->to_fp16_rows_if_exact(); break;
        case ComputeType::kFloat16: l->convert(WeightFormat::kFloat16Rows); break;
      }
    }
  }

 private:
  std::optional<ComputeType> type_;
  WeightFormat floats_;
  WeightFormat packed_;
};

WhisperModel assemble(ModelData&& data, std::optional<ComputeType> compute_type) {
  WhisperModel m;
  m.dims = data.dims;
  m.compute_type = compute_type.value_or(ComputeType::kFloat32);
  const ModelDims& d = m.dims;
  Builder b(data);
  const StorageConversion to(compute_type);
  const int da = d.n_audio_state;
  const int dt = d.n_text_state;

  // The largest tensor first: it is decoded and converted while little else is resident.
  m.token_embedding = Linear(b.take("decoder.token_embedding.weight", {d.n_vocab, dt}), Tensor());
  to.few_rows({&m.token_embedding});

  m.conv1 = b.conv("encoder.conv1", da, d.n_mels);
  m.conv2 = b.conv("encoder.conv2", da, da);
  to.convolutions({&m.conv1, &m.conv2});
  m.audio_positions = b.take("encoder.positional_embedding", {d.n_audio_ctx, da}).data;
  for (int i = 0; i < d.n_audio_layer; ++i) {
    const std::string p = "encoder.blocks." + std::to_string(i);
    EncoderBlock blk;
    blk.attn_ln = b.layer_norm(p + ".attn_ln", da);
    blk.qkv = b.fused_qkv(p + ".attn", da);
    blk.attn_out = b.linear(p + ".attn.out", da, da);
    blk.mlp_ln = b.layer_norm(p + ".mlp_ln", da);
    blk.mlp_in = b.linear(p + ".mlp.0", 4 * da, da);
    blk.mlp_out = b.linear(p + ".mlp.2", da, 4 * da);
    to.many_rows({&blk.qkv, &blk.attn_out, &blk.mlp_in, &blk.mlp_out});
    m.encoder_blocks.push_back(std::move(blk));
  }
  m.encoder_ln_post = b.layer_norm("encoder.ln_post", da);

  m.text_positions = b.take("decoder.positional_embedding", {d.n_text_ctx, dt}).data;
  std::vector<Linear> cross_k, cross_v;
  for (int i = 0; i < d.n_text_layer; ++i) {
    const std::string p = "decoder.blocks." + std::to_string(i);
    DecoderBlock blk;
    blk.attn_ln = b.layer_norm(p + ".attn_ln", dt);
    blk.qkv = b.fused_qkv(p + ".attn", dt);
    blk.attn_out = b.linear(p + ".attn.out", dt, dt);
    blk.cross_ln = b.layer_norm(p + ".cross_attn_ln", dt);
    blk.cross_query = b.linear(p + ".cross_attn.query", dt, dt);
    // Cross keys/values read the encoder output, whose width is the audio width.
    cross_k.push_back(b.linear(p + ".cross_attn.key", dt, da, /*has_bias=*/false));
    cross_v.push_back(b.linear(p + ".cross_attn.value", dt, da));
    blk.cross_out = b.linear(p + ".cross_attn.out", dt, dt);
    blk.mlp_ln = b.layer_norm(p + ".mlp_ln", dt);
    blk.mlp_in = b.linear(p + ".mlp.0", 4 * dt, dt);
    blk.mlp_out = b.linear(p + ".mlp.2", dt, 4 * dt);
    to.few_rows({&blk.qkv, &blk.attn_out, &blk.cross_query, &blk.cross_out, &blk.mlp_in, &blk.mlp_out});
    m.decoder_blocks.push_back(std::move(blk));
  }
  std::vector<const Linear*> kv_parts;
  for (int i = 0; i < d.n_text_layer; ++i) {
    kv_parts.push_back(&cross_k[i]);
    kv_parts.push_back(&cross_v[i]);
  }
  m.cross_kv_all_layers = Linear::concat(kv_parts);
  to.many_rows({&m.cross_kv_all_layers});
  m.decoder_ln = b.layer_norm("decoder.ln", dt);
  return m;
}

}  // namespace

size_t WhisperModel::decode_weight_bytes() const {
  size_t bytes = token_embedding.weight_bytes();
  for (const DecoderBlock& blk : decoder_blocks)
    for (const Linear* l : {&blk.qkv, &blk.attn_out, &blk.cross_query, &blk.cross_out, &blk.mlp_in, &blk.mlp_out})
      bytes += l->weight_bytes();
  return bytes;
}

WhisperModel assemble_whisper_model(ModelData&& data) { return assemble(std::move(data), std::nullopt); }

WhisperModel build_whisper_model(ModelData&& data, ComputeType compute_type) {
  return assemble(std::move(data), compute_type);
}

}  // namespace auris
