#include "whisper/cuda/cuda_weights.h"

#include <type_traits>

#include "auris/error.h"
#include "kernels/cpu/linear.h"
#include "model/half_float.h"

namespace auris {

namespace {

using cuda::DeviceBuffer;

// fp32 host values uploaded as T (fp16 and bf16 rounded to nearest even on the host).
template <typename T>
void upload_as(const std::vector<float>& values, DeviceBuffer<T>& buffer) {
  if constexpr (std::is_same_v<T, float>) {
    buffer.upload(values);
  } else {
    std::vector<uint16_t> bits(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      bits[i] = std::is_same_v<T, __half> ? float_to_fp16(values[i]) : float_to_bf16(values[i]);
    static_assert(sizeof(T) == sizeof(uint16_t));
    buffer.upload(reinterpret_cast<const T*>(bits.data()), bits.size());
  }
}

template <typename T>
cuda::DeviceLinear<T> upload(const Linear& layer) {
  if (layer.format() != WeightFormat::kFloat32) throw Error("CUDA upload needs the fp32 weights as loaded");
  cuda::DeviceLinear<T> d;
  d.in = layer.in_features();
  d.out = layer.out_features();
  const std::vector<float> w(layer.weight(), layer.weight() + static_cast<size_t>(d.in) * d.out);
  upload_as<T>(w, d.weight);
  if (layer.bias()) d.bias.upload(std::vector<float>(layer.bias(), layer.bias() + d.out));
  return d;
}

cuda::DeviceLayerNorm upload(const LayerNormWeights& ln) {
  cuda::DeviceLayerNorm d;
  d.gamma.upload(ln.gamma);
  d.beta.upload(ln.beta);
  return d;
}

template <typename T>
std::shared_ptr<const CudaWeights> upload_model(const WhisperModel& m, ComputeType compute_type) {
  auto w = std::make_shared<cuda::WeightsOf<T>>();
  w->dims = m.dims;
  w->compute_type = compute_type;
  w->conv1 = upload<T>(m.conv1);
  w->conv2 = upload<T>(m.conv2);
  w->audio_positions.upload(m.audio_positions);
  for (const EncoderBlock& b : m.encoder_blocks)
    w->encoder_blocks.push_back({upload(b.attn_ln), upload<T>(b.qkv), upload<T>(b.attn_out), upload(b.mlp_ln),
                                 upload<T>(b.mlp_in), upload<T>(b.mlp_out)});
  w->encoder_ln_post = upload(m.encoder_ln_post);
  w->token_embedding = upload<T>(m.token_embedding);
  w->text_positions.upload(m.text_positions);
  for (const DecoderBlock& b : m.decoder_blocks)
    w->decoder_blocks.push_back({upload(b.attn_ln), upload<T>(b.qkv), upload<T>(b.attn_out), upload(b.cross_ln),
                                 upload<T>(b.cross_query), upload<T>(b.cross_out), upload(b.mlp_ln),
                                 upload<T>(b.mlp_in), upload<T>(b.mlp_out)});
  w->cross_kv_all_layers = upload<T>(m.cross_kv_all_layers);
  w->decoder_ln = upload(m.decoder_ln);
  AURIS_CUDA_CHECK(cudaDeviceSynchronize());
  return w;
}

}  // namespace

namespace cuda {

std::shared_ptr<const CudaWeights> upload_weights(const WhisperModel& model, ComputeType compute_type) {
  require_device();
  if (model.dims.n_text_state / model.dims.n_text_head != 64 || model.dims.n_audio_state / model.dims.n_audio_head != 64)
    throw Error("the CUDA kernels take 64-wide attention heads, as every Whisper model has; this model's differ");
  switch (compute_type) {
    case ComputeType::kFloat32: return upload_model<float>(model, compute_type);
    case ComputeType::kFloat16: return upload_model<__half>(model, compute_type);
    case ComputeType::kBfloat16: return upload_model<__nv_bfloat16>(model, compute_type);
    case ComputeType::kInt8:
    case ComputeType::kInt8Bfloat16: break;
  }
  throw Error("compute types int8 and int8_bfloat16 run on the CPU only: on CUDA use float16, bfloat16 or float32");
}

size_t decode_weight_bytes(const CudaWeights& weights) {
  switch (weights.compute_type) {
    case ComputeType::kFloat32: return static_cast<const WeightsOf<float>&>(weights).decode_weight_bytes();
    case ComputeType::kFloat16: return static_cast<const WeightsOf<__half>&>(weights).decode_weight_bytes();
    case ComputeType::kBfloat16: return static_cast<const WeightsOf<__nv_bfloat16>&>(weights).decode_weight_bytes();
    case ComputeType::kInt8:
    case ComputeType::kInt8Bfloat16: break;
  }
  return 0;
}

}  // namespace cuda

}  // namespace auris
