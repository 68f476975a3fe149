// The decoder's two caches.
//  - CrossKVCache: K and V of every decoder layer's cross-attention for one 30-s window, computed by
//    one GEMM right after the encoder and then only read: by every decode step, every beam and every
//    temperature retry of that window.
//  - SelfKVCache: static [layers][rows][heads][n_text_ctx][d_head] keys and values, allocated once per session;
//    steps append one position, attention reads only the filled prefix [0, length). The prompt that
//    every beam starts from is stored once, in row 0, and read once for all rows.
#pragma once

#include <cstdint>
#include <vector>

#include "util/huge_pages.h"
#include "util/lazy_zero_pages.h"

#include "whisper/whisper_model.h"

namespace auris {

class CrossKVCache {
 public:
  // encoder_out: [n_audio_ctx x n_audio_state]. Stored in fp32 for the float32 compute type (exact),
  // in fp16 for float16 and bfloat16 (half the bytes every decode step reads), and in int8 for int8
  // (a quarter), each key and each value row of a head with its own scale, so that one loud frame
  // costs no other frame its precision.
  // projection: the caller's scratch for the projection's output, a chunk of rows at a time (up
  // to 168 MB for large-v3), shared by the caches one caller computes in turn.
  void compute(const WhisperModel& model, const float* encoder_out, std::vector<float>& projection);
  // What compute() stores for a model of these dimensions and compute type: bytes() after it.
  static size_t storage_bytes(const ModelDims& dims, ComputeType compute_type);
  // Head-major, so that every step streams each head's keys and values in order. Keys are in panels
  // (kernels/cpu/attention.h): head h of layer l is key_panel_capacity(n_ctx) / kKeyPanel panels of
  // [d_head x kKeyPanel] at keys(l) + h*head_stride(), which a decode step's few queries and a
  // prefill's many read as they are. Values are [n_ctx x d_head] at values(l) + h*head_stride().
  // fp32 storage: keys()/values(); fp16 storage: keys_fp16()/values_fp16(); int8 storage:
  // keys_int8()/values_int8(), key t of head h standing for key_scales(l)[h*scale_head_stride() + t]
  // times its int8 components (values_scales() likewise for value rows).
  bool fp16() const { return !half_.empty(); }
  bool int8() const { return !quantized_.empty(); }
  const float* keys(int layer) const { return data_.data() + layer_offset(layer); }
  const float* values(int layer) const { return keys(layer) + static_cast<size_t>(capacity_) * width_; }
  const uint16_t* keys_fp16(int layer) const { return half_.data() + layer_offset(layer); }
  const uint16_t* values_fp16(int layer) const { return keys_fp16(layer) + static_cast<size_t>(capacity_) * width_; }
  const int8_t* keys_int8(int layer) const { return quantized_.data() + layer_offset(layer); }
  const int8_t* values_int8(int layer) const { return keys_int8(layer) + static_cast<size_t>(capacity_) * width_; }
  const float* key_scales(int layer) const { return scales_.data() + layer_offset(layer) / d_head_; }
  const float* value_scales(int layer) const { return key_scales(layer) + static_cast<size_t>(capacity_) * width_ / d_head_; }
  long scale_head_stride() const { return capacity_; }
  int values_row_stride() const { return d_head_; }
  long head_stride() const { return static_cast<long>(capacity_) * d_head_; }
  int n_ctx() const { return n_ctx_; }
  // One head's keys as fp32 [d_head x n_ctx], key t in column t (alignment heads' scores by sgemm).
  void head_keys(int layer, int head, float* out) const;
  // Bytes a decode step reads.
  size_t bytes() const {
    return data_.size() * sizeof(float) + half_.size() * sizeof(uint16_t) + quantized_.size() + scales_.size() * sizeof(float);
  }

 private:
  size_t layer_offset(int layer) const { return static_cast<size_t>(layer) * 2 * capacity_ * width_; }
  ZeroedVector<float> data_;       // [layers][K, V][heads][key panels | n_ctx x d_head], or
  ZeroedVector<uint16_t> half_;    // the same in fp16
  ZeroedVector<int8_t> quantized_; // the same in int8,
  std::vector<float> scales_;     // with a scale per key and per value row: [layers][K, V][heads][capacity]
  int width_ = 0;
  int d_head_ = 0;
  int n_ctx_ = 0;
  int capacity_ = 0;  // n_ctx rounded up to whole key panels
};

class SelfKVCache {
 public:
  SelfKVCache(int n_layers, int max_rows, int n_ctx, int n_head, int d_head);

  // Head-major: head h of a layer's row starts at keys(layer, row) + h * head_stride(), and holds
  // position p at + p * d_head(). A decode step's thread then reads its heads' filled prefixes as a
  // few contiguous runs; with the heads side by side in each position's row, two threads each read
  // every other kilobyte, which the hardware prefetchers follow poorly (docs/benchmarks/cpu-kernels.md,
  // "the self-attention cache by head").
  float* keys(int layer, int row) { return static_cast<float*>(k_.data()) + offset(layer, row); }
  float* values(int layer, int row) { return static_cast<float*>(v_.data()) + offset(layer, row); }
  long head_stride() const { return static_cast<long>(n_ctx_) * d_head_; }
  int d_head() const { return d_head_; }
  // Writes position pos of a row: k and v are [n_head x d_head], heads side by side (a row of the
  // fused QKV projection).
  void store(int layer, int row, int pos, const float* k, const float* v);
  int length() const { return length_; }
  // A length below the shared prefix's (a new prefill) ends the sharing.
  void set_length(int length) {
    length_ = length;
    if (length_ < shared_length_) shared_length_ = 0;
  }
  // Positions [0, shared_length()) are every row's, stored in row 0 only; each row's own positions
  // follow them in its own slots.
  int shared_length() const { return shared_length_; }
  int max_rows() const { return max_rows_; }
  int capacity() const { return n_ctx_; }
  // Row i continues from source_rows[i]'s positions (only its own are copied: the shared ones are
  // everyone's already).
  void reorder(const std::vector<int>& source_rows);
  // Row 0's filled prefix becomes every row's: identical prompts are prefilled once, stored once and
  // read once per step for all rows.
  void share_prefix() { shared_length_ = length_; }
  // Empties the cache and gives back the memory its positions took: for a new window, so that a
  // batch's slots hold what their windows write now, not the most any window ever wrote.
  void release_memory() {
    set_length(0);
    k_.release();
    v_.release();
  }

 private:
  size_t offset(int layer, int row) const {
    return (static_cast<size_t>(layer) * max_rows_ + row) * n_head_ * head_stride();
  }
  int n_layers_, max_rows_, n_ctx_, n_head_, d_head_;
  int length_ = 0;
  int shared_length_ = 0;
  // Only the positions a window fills take memory: a static 448-position cache for 5 beams of base
  // is 55 MB, and a window fills a third of each head's part or less.
  LazyZeroPages k_, v_;
  std::vector<float> scratch_;
};

}  // namespace auris
