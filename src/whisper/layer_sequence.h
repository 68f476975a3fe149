// Whisper's layers in order, written once for every device, as CTranslate2 writes its layers over
// device-dispatched ops: which sublayer follows which, where the residual connections and layer
// norms sit, which projection feeds which attention. Each device (the CPU decoder and encoder,
// the CUDA engine) supplies the ops over its own buffers, fused where it pays, and counts the rows
// its projections multiply as it runs them.
//
// The ops a device supplies, each over the pass's rows (for a decoder pass: every row of every
// window in it):
//   embed()                            x = token embedding + position embedding (decoder only)
//   norm(ln)                           normed = ln(x)
//   project(from, linear, to)          to = from W^T; the bias is added here or by the op that
//                                      reads `to` (attention, add_and_norm), as the device fuses it
//   project_gelu(from, linear, to)     to = GELU(from W^T + b)
//   self_attention(layer, qkv)         attended = self-attention of the fused Q/K/V in kQkv (qkv:
//                                      their projection, for its bias); a decoder stores the rows'
//                                      K and V in its cache first and reads only its filled prefix
//   cross_attention(layer, query)      attended = the queries in kProjected over the window's
//                                      cross-attention K/V (decoder only: Q is all it projects)
//   add_and_norm(linear, ln)           x += kProjected (+ linear's bias, if still pending);
//                                      normed = ln(x)
//   logits()                           the vocabulary projection of the wanted rows of normed
#pragma once

#include <cstddef>
#include <vector>

namespace auris {

// The activations a pass moves between its ops.
enum class LayerBuffer { kNormed, kQkv, kAttended, kProjected, kHidden };

// One encoder block over x (normed enters holding attn_ln(x)); leaves normed = next(x), `next`
// being the next block's attn_ln or ln_post.
template <typename Ops, typename Block, typename Norm>
void encoder_block(Ops& ops, const Block& b, const Norm& next) {
  using B = LayerBuffer;
  ops.project(B::kNormed, b.qkv, B::kQkv);
  ops.self_attention(0, b.qkv);
  ops.project(B::kAttended, b.attn_out, B::kProjected);
  ops.add_and_norm(b.attn_out, b.mlp_ln);
  ops.project_gelu(B::kNormed, b.mlp_in, B::kHidden);
  ops.project(B::kHidden, b.mlp_out, B::kProjected);
  ops.add_and_norm(b.mlp_out, next);
}

// The encoder's blocks over x (the convolutions' output plus positions): normed = ln_post(x).
template <typename Ops, typename Block, typename Norm>
void encoder_blocks(Ops& ops, const std::vector<Block>& blocks, const Norm& ln_post) {
  ops.norm(blocks[0].attn_ln);
  for (size_t i = 0; i < blocks.size(); ++i) encoder_block(ops, blocks[i], i + 1 < blocks.size() ? blocks[i + 1].attn_ln : ln_post);
}

// A decoder pass, from the tokens to the logits.
template <typename Ops, typename Block, typename Norm>
void decoder_pass(Ops& ops, const std::vector<Block>& blocks, const Norm& final_ln) {
  using B = LayerBuffer;
  ops.embed();
  ops.norm(blocks[0].attn_ln);
  for (size_t l = 0; l < blocks.size(); ++l) {
    const Block& b = blocks[l];
    // Self-attention over the rows' own cache.
    ops.project(B::kNormed, b.qkv, B::kQkv);
    ops.self_attention(static_cast<int>(l), b.qkv);
    ops.project(B::kAttended, b.attn_out, B::kProjected);
    ops.add_and_norm(b.attn_out, b.cross_ln);
    // Cross-attention: Q only, over the window's K/V computed once.
    ops.project(B::kNormed, b.cross_query, B::kProjected);
    ops.cross_attention(static_cast<int>(l), b.cross_query);
    ops.project(B::kAttended, b.cross_out, B::kProjected);
    ops.add_and_norm(b.cross_out, b.mlp_ln);
    // The MLP.
    ops.project_gelu(B::kNormed, b.mlp_in, B::kHidden);
    ops.project(B::kHidden, b.mlp_out, B::kProjected);
    ops.add_and_norm(b.mlp_out, l + 1 < blocks.size() ? blocks[l + 1].attn_ln : final_ln);
  }
  ops.logits();
}

}  // namespace auris
