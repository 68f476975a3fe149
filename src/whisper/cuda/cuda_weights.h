// The model's weights on the CUDA device, uploaded once at load in the compute type's storage type
// T (float, __half, __nv_bfloat16); biases, layer norms and position tables stay fp32. The layout is
// the CPU's runtime layout (whisper_model.h): fused QKV, one cross K/V projection for all layers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <memory>
#include <vector>

#include "auris/model.h"
#include "kernels/cuda/device.h"
#include "model/model_dims.h"
#include "whisper/whisper_model.h"

namespace auris {

struct CudaWeights {
  virtual ~CudaWeights() = default;
  ModelDims dims;
  ComputeType compute_type = ComputeType::kFloat32;
};

namespace cuda {

template <typename T>
struct DeviceLinear {
  DeviceBuffer<T> weight;   // [out x in]
  DeviceBuffer<float> bias;  // [out], or empty
  int in = 0, out = 0;
  const float* bias_or_null() const { return bias.size() ? bias.data() : nullptr; }
};

struct DeviceLayerNorm {
  DeviceBuffer<float> gamma, beta;
};

template <typename T>
struct DeviceEncoderBlock {
  DeviceLayerNorm attn_ln;
  DeviceLinear<T> qkv, attn_out;
  DeviceLayerNorm mlp_ln;
  DeviceLinear<T> mlp_in, mlp_out;
};

template <typename T>
struct DeviceDecoderBlock {
  DeviceLayerNorm attn_ln;
  DeviceLinear<T> qkv, attn_out;
  DeviceLayerNorm cross_ln;
  DeviceLinear<T> cross_query, cross_out;
  DeviceLayerNorm mlp_ln;
  DeviceLinear<T> mlp_in, mlp_out;
};

template <typename T>
struct WeightsOf : CudaWeights {
  DeviceLinear<T> conv1, conv2;  // im2col'd: [d x n_mels*3], [d x d*3]
  DeviceBuffer<float> audio_positions;
  std::vector<DeviceEncoderBlock<T>> encoder_blocks;
  DeviceLayerNorm encoder_ln_post;
  DeviceLinear<T> token_embedding;  // [n_vocab x d], no bias: looked up and multiplied (tied)
  DeviceBuffer<float> text_positions;
  std::vector<DeviceDecoderBlock<T>> decoder_blocks;
  DeviceLinear<T> cross_kv_all_layers;
  DeviceLayerNorm decoder_ln;

  size_t decode_weight_bytes() const {
    size_t n = token_embedding.weight.size();
    for (const auto& b : decoder_blocks)
      for (const DeviceLinear<T>* l : {&b.qkv, &b.attn_out, &b.cross_query, &b.cross_out, &b.mlp_in, &b.mlp_out})
        n += l->weight.size();
    return n * sizeof(T);
  }
};

// The model's fp32 weights (assemble_whisper_model) uploaded once in the compute type's storage type.
std::shared_ptr<const CudaWeights> upload_weights(const WhisperModel& model, ComputeType compute_type);
size_t decode_weight_bytes(const CudaWeights& weights);

}  // namespace cuda
}  // namespace auris
