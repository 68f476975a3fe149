#include "whisper/kv_cache.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "auris/error.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/row_quantization.h"
#include "model/half_float.h"
#include "util/huge_pages.h"

namespace auris {

namespace {

// Rows [t0, t0 + rows) of one head's keys or values, from the projection's chunk (row t - t0 at
// src + (t - t0) * ld, d components), into the cache's layout at dst: keys into panels of
// [d x kKeyPanel] (t0 a whole number of panels), values by row. convert(value, t - t0) gives the
// stored element. Panel by panel, each component's kKeyPanel keys are written as one run, where key
// by key every component went to its own cache line.
template <typename S, typename T, typename Convert>
void regroup_rows(const S* src, size_t ld, int t0, int rows, int d, bool is_key, T* dst, Convert convert) {
  if (!is_key) {
    for (int t = 0; t < rows; ++t)
      for (int c = 0; c < d; ++c) dst[static_cast<size_t>(t0 + t) * d + c] = convert(src[t * ld + c], t);
    return;
  }
  for (int p0 = 0; p0 < rows; p0 += kKeyPanel) {
    const int n = std::min(kKeyPanel, rows - p0);
    T* panel = dst + static_cast<size_t>((t0 + p0) / kKeyPanel) * d * kKeyPanel;
    for (int c = 0; c < d; ++c)
      for (int j = 0; j < n; ++j) panel[c * kKeyPanel + j] = convert(src[(p0 + j) * ld + c], p0 + j);
  }
}

}  // namespace

void CrossKVCache::compute(const WhisperModel& model, const float* encoder_out, std::vector<float>& projection) {
  n_ctx_ = model.dims.n_audio_ctx;
  width_ = model.dims.n_text_state;
  const int n_head = model.dims.n_text_head;
  d_head_ = width_ / n_head;
  capacity_ = key_panel_capacity(n_ctx_);
  const int projected_width = model.cross_kv_all_layers.out_features();
  const size_t size = static_cast<size_t>(capacity_) * projected_width;
  const bool int8 = has_int8_weights(model.compute_type);
  const bool half = !int8 && model.compute_type != ComputeType::kFloat32;
  // Zeros when first allocated: the last panel's padding keys are multiplied (their scores are never
  // read), and zeros keep them free of NaN and denormals. No window writes them, so the next windows
  // overwrite the rest in place. The zeros are fresh pages' (ZeroedVector), so the first window's
  // pages are first touched by the regrouping below, on every thread, not by a fill on one. On huge
  // pages: every decode step reads all of it.
  auto take = [size](auto& storage, bool used) {
    using Storage = std::decay_t<decltype(storage)>;
    if (!used) return Storage().swap(storage);
    if (storage.size() == size) return;
    Storage fresh;
    fresh.resize(size);
    storage.swap(fresh);
  };
  take(data_, !half && !int8);
  take(half_, half);
  take(quantized_, int8);
  if (!int8)
    std::vector<float>().swap(scales_);
  else if (scales_.size() != size / d_head_)
    scales_.assign(size / d_head_, 0.0f);
  // The projection runs over chunks of 512 rows into a small buffer (large-v3's whole output would be
  // 0.5 GB twice over; smaller chunks would re-pack the weights too often), each chunk regrouped
  // from [row][layer][K|V][head][d] into [layer][K|V][head]: keys into panels of [d][kKeyPanel rows],
  // values [row][d].
  constexpr int kChunkRows = 512;
  projection.resize(static_cast<size_t>(kChunkRows) * projected_width);
  const int blocks = projected_width / d_head_;  // layers * 2 * heads
  for (int t0 = 0; t0 < n_ctx_; t0 += kChunkRows) {
    const int rows = std::min(kChunkRows, n_ctx_ - t0);
    model.cross_kv_all_layers.forward(encoder_out + static_cast<size_t>(t0) * width_, rows, projection.data());
#pragma omp parallel for schedule(static)
    for (int b = 0; b < blocks; ++b) {
      const float* src = projection.data() + static_cast<size_t>(b) * d_head_;
      const size_t at = static_cast<size_t>(b) * capacity_ * d_head_;
      const bool is_key = (b / n_head) % 2 == 0;
      auto regroup = [&](auto* dst, auto convert) {
        regroup_rows(src, projected_width, t0, rows, d_head_, is_key, dst + at, convert);
      };
      if (int8) {
        // Each row of the head quantised in a run, then regrouped byte by byte.
        thread_local std::vector<int8_t> staged;
        staged.resize(static_cast<size_t>(rows) * d_head_);
        for (int t = 0; t < rows; ++t)
          scales_[static_cast<size_t>(b) * capacity_ + t0 + t] =
              quantize_row_symmetric(src + static_cast<size_t>(t) * projected_width, d_head_, staged.data() + static_cast<size_t>(t) * d_head_);
        regroup_rows(staged.data(), static_cast<size_t>(d_head_), t0, rows, d_head_, is_key, quantized_.data() + at,
                     [](int8_t v, int) { return v; });
      } else if (half) {
        // Regrouped in fp32 first, then converted eight at a time (F16C): converted one by one in
        // the regrouping, the window's cross K/V took 1.1-1.3x as long as float32's.
        thread_local std::vector<float> staged;
        const size_t n = static_cast<size_t>(is_key ? key_panel_capacity(rows) : rows) * d_head_;
        staged.assign(n, 0.0f);  // a last panel's padding keys stay zero
        regroup_rows(src, projected_width, 0, rows, d_head_, is_key, staged.data(), [](float v, int) { return v; });
        float_to_fp16_exact_n(staged.data(), n, half_.data() + at + static_cast<size_t>(t0) * d_head_);
      } else {
        regroup(data_.data(), [](float v, int) { return v; });
      }
    }
  }
}

size_t CrossKVCache::storage_bytes(const ModelDims& dims, ComputeType compute_type) {
  const size_t components = static_cast<size_t>(key_panel_capacity(dims.n_audio_ctx)) * dims.n_text_layer * 2 * dims.n_text_state;
  if (compute_type == ComputeType::kFloat32) return components * sizeof(float);
  if (!has_int8_weights(compute_type)) return components * sizeof(uint16_t);
  return components + components / (dims.n_text_state / dims.n_text_head) * sizeof(float);
}

void CrossKVCache::head_keys(int layer, int head, float* out) const {
  const size_t at = layer_offset(layer) + static_cast<size_t>(head) * head_stride();
  for (int c = 0; c < d_head_; ++c)
    for (int t = 0; t < n_ctx_; ++t) {
      const size_t i = at + (static_cast<size_t>(t / kKeyPanel) * d_head_ + c) * kKeyPanel + t % kKeyPanel;
      out[static_cast<size_t>(c) * n_ctx_ + t] =
          int8() ? scales_[at / d_head_ + t] * quantized_[i] : fp16() ? fp16_to_float(half_[i]) : data_[i];
    }
}

SelfKVCache::SelfKVCache(int n_layers, int max_rows, int n_ctx, int n_head, int d_head)
    : n_layers_(n_layers), max_rows_(max_rows), n_ctx_(n_ctx), n_head_(n_head), d_head_(d_head) {
  const size_t size = static_cast<size_t>(n_layers) * max_rows * n_head * n_ctx * d_head;
  k_ = LazyZeroPages(size * sizeof(float), "for the decoder's self-attention keys");
  v_ = LazyZeroPages(size * sizeof(float), "for the decoder's self-attention values");
}

void SelfKVCache::store(int layer, int row, int pos, const float* k, const float* v) {
  const size_t at = static_cast<size_t>(pos) * d_head_;
  for (int h = 0; h < n_head_; ++h) {
    std::memcpy(keys(layer, row) + at + h * head_stride(), k + static_cast<size_t>(h) * d_head_, d_head_ * sizeof(float));
    std::memcpy(values(layer, row) + at + h * head_stride(), v + static_cast<size_t>(h) * d_head_, d_head_ * sizeof(float));
  }
}

void SelfKVCache::reorder(const std::vector<int>& source_rows) {
  const int rows = static_cast<int>(source_rows.size());
  std::vector<int> changed;  // rows that take another row's positions
  for (int i = 0; i < rows; ++i) {
    if (source_rows[i] < 0 || source_rows[i] >= max_rows_) throw Error("beam reorder names a row out of range");
    if (source_rows[i] != i) changed.push_back(i);
  }
  if (changed.empty() || length_ == shared_length_) return;
  // Only a source that is itself overwritten needs a copy first; the others are read in place.
  std::vector<int> saved_slot(max_rows_, -1);
  int saved = 0;
  for (int i : changed) {
    const int source = source_rows[i];
    if (saved_slot[source] < 0 && source < rows && source_rows[source] != source) saved_slot[source] = saved++;
  }
  // A row's own positions: one run per head.
  const size_t own_start = static_cast<size_t>(shared_length_) * d_head_;
  const size_t head_run = static_cast<size_t>(length_ - shared_length_) * d_head_;
  const size_t own_size = head_run * n_head_;
  auto copy_own = [&](float* to, long to_head_stride, const float* from, long from_head_stride) {
    for (int h = 0; h < n_head_; ++h) std::memcpy(to + h * to_head_stride, from + h * from_head_stride, head_run * sizeof(float));
  };
  // Keys and values of each layer are independent: the 2 * n_layers parts are copied in parallel,
  // each thread keeping its saved rows in its own slice of the scratch.
  const int threads = std::min(omp_get_max_threads(), 2 * n_layers_);
  scratch_.resize(static_cast<size_t>(threads) * saved * own_size);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int part = 0; part < 2 * n_layers_; ++part) {
    float* cache = part < n_layers_ ? keys(0, 0) : values(0, 0);
    const int layer = part % n_layers_;
    float* kept = scratch_.data() + static_cast<size_t>(omp_get_thread_num()) * saved * own_size;
    for (int row = 0; row < max_rows_; ++row)
      if (saved_slot[row] >= 0)
        copy_own(kept + saved_slot[row] * own_size, head_run, cache + offset(layer, row) + own_start, head_stride());
    for (int i : changed) {
      const int source = source_rows[i];
      float* to = cache + offset(layer, i) + own_start;
      if (saved_slot[source] >= 0)
        copy_own(to, head_stride(), kept + saved_slot[source] * own_size, head_run);
      else
        copy_own(to, head_stride(), cache + offset(layer, source) + own_start, head_stride());
    }
  }
}

}  // namespace auris
