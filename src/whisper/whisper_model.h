// The Whisper weights in the layout the engine runs: convolutions as im2col GEMMs, one fused QKV
// projection per self-attention, cross-attention split into a Q-only projection per layer (used by
// every decode step) and ONE fused K/V projection for all decoder layers (used once per window).
#pragma once

#include <vector>

#include "auris/model.h"
#include "kernels/cpu/linear.h"
#include "model/model_data.h"

namespace auris {

struct LayerNormWeights {
  std::vector<float> gamma;
  std::vector<float> beta;
};

struct EncoderBlock {
  LayerNormWeights attn_ln;
  Linear qkv;       // [3d x d]: query, key (zero bias), value
  Linear attn_out;  // [d x d]
  LayerNormWeights mlp_ln;
  Linear mlp_in;   // [4d x d]
  Linear mlp_out;  // [d x 4d]
};

struct DecoderBlock {
  LayerNormWeights attn_ln;
  Linear qkv;
  Linear attn_out;
  LayerNormWeights cross_ln;
  Linear cross_query;  // decode steps project only Q for cross-attention
  Linear cross_out;
  LayerNormWeights mlp_ln;
  Linear mlp_in;
  Linear mlp_out;
};

struct WhisperModel {
  ModelDims dims;
  ComputeType compute_type = ComputeType::kFloat32;

  Linear conv1;  // [d x n_mels*3] over im2col'd mel
  Linear conv2;  // [d x d*3], stride 2
  std::vector<float> audio_positions;  // [n_audio_ctx x d]
  std::vector<EncoderBlock> encoder_blocks;
  LayerNormWeights encoder_ln_post;

  Linear token_embedding;  // [n_vocab x d]: looked up for inputs, multiplied for logits (tied)
  std::vector<float> text_positions;  // [n_text_ctx x d]
  std::vector<DecoderBlock> decoder_blocks;
  // K and V of every decoder layer's cross-attention in one GEMM: output row r holds, for layer l,
  // K at [l*2d, l*2d+d) and V at [l*2d+d, (l+1)*2d).
  Linear cross_kv_all_layers;
  LayerNormWeights decoder_ln;

  // Bytes of weights one decode step streams: every decoder layer's and the vocabulary projection.
  size_t decode_weight_bytes() const;
};

// Consumes the loader's canonical weights (moved, not copied, each decoded as it is taken) into the
// runtime layout (fused QKV, one cross K/V projection for all layers) and converts each part to the
// compute type for the CPU kernels as soon as it is assembled: the encoder's and the cross K/V
// projection's packed for the many-row GEMM, the decoder's for the decode step's weight streaming.
// The peak memory of a load is then the converted model plus one fp32 tensor. Throws auris::Error on
// shape errors.
WhisperModel build_whisper_model(ModelData&& data, ComputeType compute_type = ComputeType::kFloat32);
// The same layout kept in fp32, for the CUDA upload.
WhisperModel assemble_whisper_model(ModelData&& data);

}  // namespace auris
