#include "model/weight_layout.h"

#include <set>

#include "audio/mel.h"
#include "auris/error.h"

namespace auris {
namespace {

void add_linear(std::vector<WeightSpec>& out, const std::string& name, int64_t rows, int64_t cols, bool bias) {
  out.push_back({name + ".weight", {rows, cols}});
  if (bias) out.push_back({name + ".bias", {rows}});
}

void add_norm(std::vector<WeightSpec>& out, const std::string& name, int64_t d) {
  out.push_back({name + ".weight", {d}});
  out.push_back({name + ".bias", {d}});
}

void add_attention(std::vector<WeightSpec>& out, const std::string& name, int64_t d) {
  add_linear(out, name + ".query", d, d, true);
  add_linear(out, name + ".key", d, d, false);  // Whisper's key projection has no bias
  add_linear(out, name + ".value", d, d, true);
  add_linear(out, name + ".out", d, d, true);
}

void add_block(std::vector<WeightSpec>& out, const std::string& prefix, int64_t d, bool cross) {
  add_attention(out, prefix + "attn", d);
  add_norm(out, prefix + "attn_ln", d);
  if (cross) {
    add_attention(out, prefix + "cross_attn", d);
    add_norm(out, prefix + "cross_attn_ln", d);
  }
  add_linear(out, prefix + "mlp.0", 4 * d, d, true);
  add_linear(out, prefix + "mlp.2", d, 4 * d, true);
  add_norm(out, prefix + "mlp_ln", d);
}

}  // namespace

std::vector<WeightSpec> expected_weights(const ModelDims& dims) {
  std::vector<WeightSpec> out;
  const int64_t da = dims.n_audio_state, dt = dims.n_text_state;
  out.push_back({"encoder.conv1.weight", {da, dims.n_mels, 3}});
  out.push_back({"encoder.conv1.bias", {da}});
  out.push_back({"encoder.conv2.weight", {da, da, 3}});
  out.push_back({"encoder.conv2.bias", {da}});
  out.push_back({"encoder.positional_embedding", {dims.n_audio_ctx, da}});
  for (int i = 0; i < dims.n_audio_layer; ++i) add_block(out, "encoder.blocks." + std::to_string(i) + ".", da, false);
  add_norm(out, "encoder.ln_post", da);
  out.push_back({"decoder.token_embedding.weight", {dims.n_vocab, dt}});
  out.push_back({"decoder.positional_embedding", {dims.n_text_ctx, dt}});
  for (int i = 0; i < dims.n_text_layer; ++i) add_block(out, "decoder.blocks." + std::to_string(i) + ".", dt, true);
  add_norm(out, "decoder.ln", dt);
  return out;
}

void validate_weights(const WeightMap& weights, const ModelDims& dims, const std::string& source) {
  if (dims.n_audio_state != dims.n_text_state)
    throw Error(source + ": encoder width " + std::to_string(dims.n_audio_state) + " differs from decoder width " +
                std::to_string(dims.n_text_state) + ": not a Whisper model");
  std::set<std::string> expected;
  for (const WeightSpec& spec : expected_weights(dims)) {
    try {
      weights.expect_shape(spec.name, spec.shape);
    } catch (const Error& e) {
      throw Error(source + ": " + e.what());
    }
    expected.insert(spec.name);
  }
  for (const std::string& name : weights.names())
    if (!expected.count(name))
      throw Error(source + ": unexpected tensor '" + name + "' " + shape_string(weights.shape(name)) +
                  ": the file is not a Whisper model of the size its other tensors say");
  // A file that agrees with itself on another encoder length (openai/whisper loads it and fails on its
  // first window): every Whisper encoder takes 3000 mel frames, 1500 positions after its stride 2.
  if (dims.n_audio_ctx != kChunkFrames / 2)
    throw Error(source + ": the encoder has " + std::to_string(dims.n_audio_ctx) + " positions, not Whisper's " +
                std::to_string(kChunkFrames / 2) + " (a 30-s window): not a Whisper model auris can run");
}

int regular_token_count(const ModelDims& dims) { return dims.is_multilingual() ? 50257 : 50256; }

}  // namespace auris
