#include "whisper/whisper_model.h"

#include <string>

#include "auris/error.h"
#include "kernels/cpu/packed_gemm.h"

namespace auris {
namespace {

class Builder {
 public:
  explicit Builder(ModelData& data) : w_(data.weights) {}

  Tensor take(const std::string& name, const std::vector<int64_t>& shape) {
    w_.get(name, shape);  // validates presence and shape with a clear message
    return w_.take(name);
  }
  Tensor take_optional(const std::string& name, const std::vector<int64_t>& shape) {
    return w_.has(name) ? take(name, shape) : Tensor();
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

// The decode step streams the decoder's weights for a few rows: they are stored in the fewest bytes
// the compute type allows. float32 keeps fp32 arithmetic and stores fp16 where that is exact (every
// weight of an fp16 checkpoint): half the bytes, the same products.
void convert_streamed(Linear& layer, ComputeType type) {
  switch (type) {
    case ComputeType::kInt8: return layer.convert(WeightFormat::kInt8Rows);
    case ComputeType::kBfloat16: return layer.convert(WeightFormat::kBfloat16Rows);
    case ComputeType::kFloat32: layer.to_fp16_rows_if_exact(); return;
    case ComputeType::kFloat16: break;
  }
  throw Error("compute type float16 runs on CUDA only: on the CPU use int8, bfloat16 or float32");
}

// Products over 1500-3000 rows (the encoder, the window's cross K/V) go to oneDNN's packed GEMM: in
// bf16 for the reduced compute types where the CPU has bf16 instructions, else fp32.
void convert_weights(WhisperModel& m, ComputeType type) {
  const bool bf16_gemm = type != ComputeType::kFloat32 && PackedGemm::supported(GemmPrecision::kBfloat16);
  const WeightFormat packed = bf16_gemm ? WeightFormat::kPackedBfloat16 : WeightFormat::kPackedFloat32;
  std::vector<Linear*> many_rows = {&m.conv1, &m.conv2, &m.cross_kv_all_layers};
  for (EncoderBlock& blk : m.encoder_blocks)
    for (Linear* l : {&blk.qkv, &blk.attn_out, &blk.mlp_in, &blk.mlp_out}) many_rows.push_back(l);
  for (Linear* l : many_rows) l->convert(packed);
  std::vector<Linear*> few_rows = {&m.token_embedding};
  for (DecoderBlock& blk : m.decoder_blocks)
    for (Linear* l : {&blk.qkv, &blk.attn_out, &blk.cross_query, &blk.cross_out, &blk.mlp_in, &blk.mlp_out})
      few_rows.push_back(l);
  for (Linear* l : few_rows) convert_streamed(*l, type);
}

}  // namespace

size_t WhisperModel::decode_weight_bytes() const {
  size_t bytes = token_embedding.weight_bytes();
  for (const DecoderBlock& blk : decoder_blocks)
    for (const Linear* l : {&blk.qkv, &blk.attn_out, &blk.cross_query, &blk.cross_out, &blk.mlp_in, &blk.mlp_out})
      bytes += l->weight_bytes();
  return bytes;
}

WhisperModel assemble_whisper_model(ModelData&& data) {
  WhisperModel m;
  m.dims = data.dims;
  const ModelDims& d = m.dims;
  Builder b(data);
  const int da = d.n_audio_state;
  const int dt = d.n_text_state;

  m.conv1 = b.conv("encoder.conv1", da, d.n_mels);
  m.conv2 = b.conv("encoder.conv2", da, da);
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
    m.encoder_blocks.push_back(std::move(blk));
  }
  m.encoder_ln_post = b.layer_norm("encoder.ln_post", da);

  m.token_embedding = Linear(b.take("decoder.token_embedding.weight", {d.n_vocab, dt}), Tensor());
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
    m.decoder_blocks.push_back(std::move(blk));
  }
  std::vector<const Linear*> kv_parts;
  for (int i = 0; i < d.n_text_layer; ++i) {
    kv_parts.push_back(&cross_k[i]);
    kv_parts.push_back(&cross_v[i]);
  }
  m.cross_kv_all_layers = Linear::concat(kv_parts);
  m.decoder_ln = b.layer_norm("decoder.ln", dt);
  return m;
}

void convert_whisper_model(WhisperModel& model, ComputeType compute_type) {
  model.compute_type = compute_type;
  convert_weights(model, compute_type);
}

WhisperModel build_whisper_model(ModelData&& data, ComputeType compute_type) {
  WhisperModel m = assemble_whisper_model(std::move(data));
  convert_whisper_model(m, compute_type);
  return m;
}

}  // namespace auris
