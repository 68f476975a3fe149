#include "model/huggingface_names.h"

#include <utility>

#include "auris/error.h"

namespace auris {
namespace {

// Whole-name renames outside the blocks.
constexpr std::pair<const char*, const char*> kGlobal[] = {
    {"encoder.positional_embedding", "model.encoder.embed_positions.weight"},
    {"decoder.positional_embedding", "model.decoder.embed_positions.weight"},
    {"decoder.token_embedding.weight", "model.decoder.embed_tokens.weight"},
    {"encoder.ln_post.weight", "model.encoder.layer_norm.weight"},
    {"encoder.ln_post.bias", "model.encoder.layer_norm.bias"},
    {"decoder.ln.weight", "model.decoder.layer_norm.weight"},
    {"decoder.ln.bias", "model.decoder.layer_norm.bias"},
};

// Renames of the part after "blocks.N." (longest first where prefixes overlap).
constexpr std::pair<const char*, const char*> kBlock[] = {
    {"cross_attn_ln.", "encoder_attn_layer_norm."}, {"cross_attn.query.", "encoder_attn.q_proj."},
    {"cross_attn.key.", "encoder_attn.k_proj."},    {"cross_attn.value.", "encoder_attn.v_proj."},
    {"cross_attn.out.", "encoder_attn.out_proj."},  {"attn_ln.", "self_attn_layer_norm."},
    {"attn.query.", "self_attn.q_proj."},           {"attn.key.", "self_attn.k_proj."},
    {"attn.value.", "self_attn.v_proj."},           {"attn.out.", "self_attn.out_proj."},
    {"mlp_ln.", "final_layer_norm."},               {"mlp.0.", "fc1."},
    {"mlp.2.", "fc2."},
};

}  // namespace

std::string huggingface_name(const std::string& canonical) {
  for (const auto& [from, to] : kGlobal)
    if (canonical == from) return to;
  if (canonical.starts_with("encoder.conv")) return "model." + canonical;
  for (const char* side : {"encoder.blocks.", "decoder.blocks."}) {
    const std::string prefix = side;
    if (!canonical.starts_with(prefix)) continue;
    const size_t dot = canonical.find('.', prefix.size());
    if (dot == std::string::npos) break;
    const std::string layer = canonical.substr(prefix.size(), dot - prefix.size());
    const std::string rest = canonical.substr(dot + 1);
    for (const auto& [from, to] : kBlock)
      if (rest.starts_with(from))
        return "model." + prefix.substr(0, 8) + "layers." + layer + "." + to + rest.substr(std::string(from).size());
  }
  throw Error("'" + canonical + "' is not a Whisper weight name");
}

}  // namespace auris
