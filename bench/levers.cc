// Each CPU speed lever of the engine measured on its own, at the shapes of Whisper base (width 512,
// 6 layers, 1500 audio positions, 51865 tokens): the variant auris uses beside the one it replaced
// or avoided. bench/levers.py runs this and prints the table in docs/benchmarks/cpu-kernels.md.
// Benchmark names are "<lever>/<variant>"; the variant auris runs carries the label "auris".
// Threads: OMP_NUM_THREADS (OpenBLAS's OpenMP build and oneDNN both read it).
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "kernels/cpu/attention.h"
#include "kernels/cpu/half_row_products.h"
#include "kernels/cpu/linear.h"
#include "kernels/cpu/norm_activation.h"
#include "kernels/cpu/packed_gemm.h"
#include "kernels/cpu/streaming_product.h"
#include "model/half_float.h"

namespace {

constexpr int kWidth = 512;
constexpr int kLayers = 6;
constexpr int kAudioPositions = 1500;
constexpr int kVocab = 51865;
constexpr int kBeams = 5;
// Rows of a prefill whose prompt carries the previous window's text (openai/whisper allows 223).
constexpr int kPrefillRows = 96;

std::vector<float> random_floats(size_t n, unsigned seed = 7) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// A layer whose weights are fp16 values, as in the published checkpoints (so fp16 rows are exact).
auris::Linear fp16_layer(int out, int in, bool bias, unsigned seed) {
  auris::Tensor w, b;
  w.shape = {out, in};
  w.data = random_floats(static_cast<size_t>(out) * in, seed);
  for (float& x : w.data) x = auris::fp16_to_float(auris::float_to_fp16(x * 0.05f));
  if (bias) {
    b.shape = {out};
    b.data = random_floats(out, seed + 1);
  }
  return auris::Linear(std::move(w), std::move(b));
}

using Body = std::function<void()>;

void run(benchmark::State& state, const Body& body, double flops, double bytes, bool ours) {
  for (auto _ : state) body();
  if (flops > 0) state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  if (bytes > 0) state.counters["GB/s"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  if (ours) state.SetLabel("auris");
}

void add(const std::string& name, Body body, double flops, double bytes, bool ours) {
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& s) { run(s, body, flops, bytes, ours); })
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

// The encoder's four products (1500 rows): OpenBLAS's sgemm, oneDNN's sgemm, and oneDNN's matmul
// with the weights packed once at load (what auris runs for float32, float16 and bfloat16), and the
// int8 compute type's: 7-bit weights times 8-bit rows, the rows quantised and the sums scaled back
// at each call (counted in its time).
void gemm_library_and_packing() {
  struct Shape {
    const char* name;
    int out, in;
  };
  for (const Shape& s : {Shape{"qkv", 3 * kWidth, kWidth}, Shape{"mlp_in", 4 * kWidth, kWidth},
                         Shape{"mlp_out", kWidth, 4 * kWidth}}) {
    auto w = std::make_shared<std::vector<float>>(random_floats(static_cast<size_t>(s.out) * s.in));
    auto x = std::make_shared<std::vector<float>>(random_floats(static_cast<size_t>(kAudioPositions) * s.in, 3));
    auto y = std::make_shared<std::vector<float>>(static_cast<size_t>(kAudioPositions) * s.out);
    auto packed = std::make_shared<auris::PackedGemm>(w->data(), s.out, s.in, std::vector<float>(),
                                                      auris::GemmPrecision::kFloat32);
    const double flops = 2.0 * kAudioPositions * s.out * s.in;
    const std::string lever = std::string("encoder_gemm_") + s.name + "/";
    const int m = kAudioPositions, n = s.out, k = s.in;
    add(lever + "openblas_sgemm", [=] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, x->data(), k, w->data(), k, 0.0f,
                  y->data(), n);
    }, flops, 0, false);
    add(lever + "onednn_sgemm", [=] {
      dnnl_sgemm('N', 'T', m, n, k, 1.0f, x->data(), k, w->data(), k, 0.0f, y->data(), n);
    }, flops, 0, false);
    add(lever + "onednn_packed_at_load", [=] { packed->forward(x->data(), m, k, y->data(), n, false); }, flops, 0,
        true);
    if (auris::PackedGemm::supported(auris::GemmPrecision::kInt8)) {
      auto int8 = std::make_shared<auris::PackedGemm>(w->data(), s.out, s.in, std::vector<float>(),
                                                      auris::GemmPrecision::kInt8);
      add(lever + "onednn_int8_packed_at_load", [=] { int8->forward(x->data(), m, k, y->data(), n, false); }, flops,
          0, true);
    }
  }
}

// The encoder MLP's first product with its bias and exact GELU: fused into oneDNN's matmul, or as
// two more passes over the 1500 x 2048 output.
void fused_bias_gelu() {
  const int out = 4 * kWidth, in = kWidth, rows = kAudioPositions;
  auto w = std::make_shared<std::vector<float>>(random_floats(static_cast<size_t>(out) * in));
  auto bias = std::make_shared<std::vector<float>>(random_floats(out, 5));
  auto x = std::make_shared<std::vector<float>>(random_floats(static_cast<size_t>(rows) * in, 3));
  auto y = std::make_shared<std::vector<float>>(static_cast<size_t>(rows) * out);
  auto fused = std::make_shared<auris::PackedGemm>(w->data(), out, in, *bias, auris::GemmPrecision::kFloat32);
  auto plain = std::make_shared<auris::PackedGemm>(w->data(), out, in, std::vector<float>(),
                                                   auris::GemmPrecision::kFloat32);
  const double flops = 2.0 * rows * out * in;
  add("bias_gelu/fused_into_gemm", [=] { fused->forward(x->data(), rows, in, y->data(), out, true); }, flops, 0,
      true);
  add("bias_gelu/separate_passes", [=] {
    plain->forward(x->data(), rows, in, y->data(), out, false);
    for (int r = 0; r < rows; ++r) auris::add_inplace(y->data() + static_cast<size_t>(r) * out, bias->data(), out);
    auris::gelu_inplace(y->data(), static_cast<long>(rows) * out);
  }, flops, 0, false);
}

// The encoder's self-attention, one layer (8 heads of 64, 1500 positions): auris's packed key panels
// and register-blocked query blocks, against what it replaced: per head and chunk of 64 queries, an
// sgemm for the scores, a row softmax, an sgemm for the weighted values; and in bf16 products.
void encoder_attention() {
  constexpr int kHeads = 8, kHead = 64, kChunk = 64;
  auto qkv = std::make_shared<std::vector<float>>(random_floats(static_cast<size_t>(kAudioPositions) * 3 * kWidth));
  auto out = std::make_shared<std::vector<float>>(static_cast<size_t>(kAudioPositions) * kWidth);
  auto scratch = std::make_shared<std::vector<float>>();
  const int ld = 3 * kWidth, n = kAudioPositions;
  const double flops = 4.0 * n * n * kWidth;
  add("encoder_attention/packed_panels_register_blocked", [=] {
    const float* q = qkv->data();
    auris::attention({q, ld, n, q + kWidth, ld, q + 2 * kWidth, ld, n, kHeads, kHead}, out->data(), kWidth, *scratch);
  }, flops, 0, true);
  add("encoder_attention/two_sgemm_per_chunk", [=] {
    const float* q = qkv->data();
    const int chunks = (n + kChunk - 1) / kChunk;
    scratch->resize(static_cast<size_t>(omp_get_max_threads()) * kChunk * n);
#pragma omp parallel for schedule(static)
    for (int u = 0; u < kHeads * chunks; ++u) {
      const int h = u / chunks, q0 = (u % chunks) * kChunk, rows = std::min(n, q0 + kChunk) - q0;
      float* scores = scratch->data() + static_cast<size_t>(omp_get_thread_num()) * kChunk * n;
      dnnl_sgemm('N', 'T', rows, n, kHead, 0.125f, q + static_cast<size_t>(q0) * ld + h * kHead, ld,
                 q + kWidth + h * kHead, ld, 0.0f, scores, n);
      for (int r = 0; r < rows; ++r) auris::softmax_inplace(scores + static_cast<size_t>(r) * n, n);
      dnnl_sgemm('N', 'N', rows, kHead, n, 1.0f, scores, n, q + 2 * kWidth + h * kHead, ld, 0.0f,
                 out->data() + static_cast<size_t>(q0) * kWidth + h * kHead, kWidth);
    }
  }, flops, 0, false);
  // The bfloat16 compute type's: bf16 products where the CPU has AVX512-BF16 (elsewhere the fp32 kernel).
  add("encoder_attention/bf16_products", [=] {
    const float* q = qkv->data();
    auris::AttentionInput in{q, ld, n, q + kWidth, ld, q + 2 * kWidth, ld, n, kHeads, kHead};
    in.bf16_products = true;
    auris::attention(in, out->data(), kWidth, *scratch);
  }, flops, 0, false);
}

// The window's cross-attention K/V: one GEMM for every decoder layer's K and V, or one per
// projection (12 for base).
void cross_kv_one_gemm() {
  const int rows = kAudioPositions, in = kWidth, parts = 2 * kLayers;
  auto w = std::make_shared<std::vector<float>>(random_floats(static_cast<size_t>(parts) * kWidth * in));
  auto x = std::make_shared<std::vector<float>>(random_floats(static_cast<size_t>(rows) * in, 3));
  auto y = std::make_shared<std::vector<float>>(static_cast<size_t>(rows) * parts * kWidth);
  auto all = std::make_shared<auris::PackedGemm>(w->data(), parts * kWidth, in, std::vector<float>(),
                                                 auris::GemmPrecision::kFloat32);
  auto each = std::make_shared<std::vector<std::unique_ptr<auris::PackedGemm>>>();
  for (int p = 0; p < parts; ++p)
    each->push_back(std::make_unique<auris::PackedGemm>(w->data() + static_cast<size_t>(p) * kWidth * in, kWidth,
                                                        in, std::vector<float>(), auris::GemmPrecision::kFloat32));
  const double flops = 2.0 * rows * parts * kWidth * in;
  add("cross_kv/one_gemm_all_layers",
      [=] { all->forward(x->data(), rows, in, y->data(), parts * kWidth, false); }, flops, 0, true);
  add("cross_kv/one_gemm_per_projection", [=] {
    for (int p = 0; p < parts; ++p)
      (*each)[p]->forward(x->data(), rows, in, y->data() + static_cast<size_t>(p) * kWidth, parts * kWidth, false);
  }, flops, 0, false);
}

// One decoder layer's products: QKV, out, cross Q, cross out, MLP in and out.
struct LayerShape {
  int out, in;
};
constexpr LayerShape kDecoderLayerShapes[] = {{3 * kWidth, kWidth}, {kWidth, kWidth},     {kWidth, kWidth},
                                              {kWidth, kWidth},     {4 * kWidth, kWidth}, {kWidth, 4 * kWidth}};

// fp16 rows widened to fp32 at each call, then sgemm (what Linear did for prefills).
void add_f16_widened(std::shared_ptr<std::vector<auris::Linear>> layers, std::shared_ptr<std::vector<std::vector<uint16_t>>> rows,
                     std::shared_ptr<std::vector<float>> x, std::shared_ptr<std::vector<float>> y, int n,
                     const std::string& lever, double flops) {
  auto widened = std::make_shared<std::vector<float>>();
  add(lever + "/widened_for_sgemm", [=] {
    std::vector<float>& w = *widened;
    for (size_t p = 0; p < layers->size(); ++p) {
      const auris::Linear& l = (*layers)[p];
      const int out = l.out_features(), in = l.in_features();
      w.resize(static_cast<size_t>(out) * in);
      auris::fp16_to_float_n(reinterpret_cast<const uint8_t*>((*rows)[p].data()), w.size(), w.data());
      dnnl_sgemm('N', 'T', n, out, in, 1.0f, x->data(), in, w.data(), in, 0.0f, y->data(), out);
    }
  }, flops, 0, false);
}

// A 96-token prefill's products through one decoder layer's fp16 rows (as float32 stores them):
// widened to fp32 for sgemm at each call, or multiplied in fp32 across rows (row_panel_product.cc).
void prefill_products() {
  auto layers = std::make_shared<std::vector<auris::Linear>>();
  double flops = 0;
  for (const LayerShape& s : kDecoderLayerShapes) {
    layers->push_back(fp16_layer(s.out, s.in, true, 20 + static_cast<unsigned>(layers->size())));
    layers->back().convert(auris::WeightFormat::kFloat16Rows);
    flops += 2.0 * kPrefillRows * s.out * s.in;
  }
  auto x = std::make_shared<std::vector<float>>(random_floats(static_cast<size_t>(kPrefillRows) * 4 * kWidth, 3));
  auto y = std::make_shared<std::vector<float>>(static_cast<size_t>(kPrefillRows) * 4 * kWidth);
  // The widened variant reads the same fp16 rows, copied out once.
  auto rows = std::make_shared<std::vector<std::vector<uint16_t>>>();
  for (const auris::Linear& l : *layers) {
    std::vector<float> w(static_cast<size_t>(l.in_features()));
    std::vector<uint16_t> half(static_cast<size_t>(l.out_features()) * l.in_features());
    for (int o = 0; o < l.out_features(); ++o) {
      l.weight_row(o, w.data());
      for (int i = 0; i < l.in_features(); ++i) half[static_cast<size_t>(o) * l.in_features() + i] = auris::float_to_fp16(w[i]);
    }
    rows->push_back(std::move(half));
  }
  add_f16_widened(layers, rows, x, y, kPrefillRows, "prefill_products", flops);
  add("prefill_products/fp32_products_across_rows", [=] {
    for (const auris::Linear& l : *layers) l.forward(x->data(), kPrefillRows, y->data());
  }, flops, 0, true);
}

// Int8 products through stream_product_int8: all rows in one call (across rows from
// kRowPanelRows), or 8 rows per call (the 8-row blocks a decode step of one window runs).
void add_int8_streamed(std::shared_ptr<std::vector<auris::Linear>> layers, std::shared_ptr<std::vector<auris::Int8Rows>> rows,
                       std::shared_ptr<std::vector<float>> x, std::shared_ptr<std::vector<float>> y, int n,
                       const std::string& lever, double flops, bool ours) {
  add(lever + "/int16_products_across_rows", [=] {
    for (size_t p = 0; p < layers->size(); ++p) {
      const auris::Linear& l = (*layers)[p];
      auris::stream_product_int8(x->data(), n, l.in_features(), (*rows)[p], l.in_features(), l.out_features(),
                                 {l.bias(), y->data(), l.out_features()});
    }
  }, flops, 0, ours);
  add(lever + "/int16_products_8_rows_at_a_time", [=] {
    for (size_t p = 0; p < layers->size(); ++p) {
      const auris::Linear& l = (*layers)[p];
      for (int r0 = 0; r0 < n; r0 += 8)
        auris::stream_product_int8(x->data() + static_cast<size_t>(r0) * l.in_features(), std::min(8, n - r0),
                                   l.in_features(), (*rows)[p], l.in_features(), l.out_features(),
                                   {l.bias(), y->data() + static_cast<size_t>(r0) * l.out_features(), l.out_features()});
    }
  }, flops, 0, false);
}

// Int8 rows dequantised to fp32 at each call, then sgemm (what Linear did for prefills).
void add_int8_dequantised(std::shared_ptr<std::vector<auris::Linear>> layers, std::shared_ptr<std::vector<auris::Int8Rows>> rows,
                          std::shared_ptr<std::vector<float>> x, std::shared_ptr<std::vector<float>> y, int n,
                          const std::string& lever, double flops, bool ours) {
  auto widened = std::make_shared<std::vector<float>>();
  add(lever + "/dequantised_for_sgemm", [=] {
    std::vector<float>& w = *widened;
    for (size_t p = 0; p < layers->size(); ++p) {
      const auris::Linear& l = (*layers)[p];
      const int out = l.out_features(), in = l.in_features();
      w.resize(static_cast<size_t>(out) * in);
      const auris::Int8Rows& q = (*rows)[p];
#pragma omp parallel for schedule(static)
      for (int o = 0; o < out; ++o)
        for (int i = 0; i < in; ++i) w[static_cast<size_t>(o) * in + i] = q.values[static_cast<size_t>(o) * in + i] * q.scales[o];
      dnnl_sgemm('N', 'T', n, out, in, 1.0f, x->data(), in, w.data(), in, 0.0f, y->data(), out);
    }
  }, flops, 0, ours);
}

// The same products with int8 weights (the int8 compute type): rows dequantised to fp32 for sgemm, or
// the activations rounded to int16 and multiplied in integers (what a decode step runs: 96 rows go
// across rows, row_panel_product.cc), or in integers 8 rows at a time.
void prefill_products_int8() {
  auto layers = std::make_shared<std::vector<auris::Linear>>();
  auto rows = std::make_shared<std::vector<auris::Int8Rows>>();
  double flops = 0;
  for (const LayerShape& s : kDecoderLayerShapes) {
    layers->push_back(fp16_layer(s.out, s.in, true, 20 + static_cast<unsigned>(layers->size())));
    rows->push_back(auris::quantize_int8_rows(layers->back().weight(), s.out, s.in));
    layers->back().convert(auris::WeightFormat::kInt8Rows);
    flops += 2.0 * kPrefillRows * s.out * s.in;
  }
  auto x = std::make_shared<std::vector<float>>(random_floats(static_cast<size_t>(kPrefillRows) * 4 * kWidth, 3));
  auto y = std::make_shared<std::vector<float>>(static_cast<size_t>(kPrefillRows) * 4 * kWidth);
  add_int8_dequantised(layers, rows, x, y, kPrefillRows, "prefill_products_int8", flops, false);
  add_int8_streamed(layers, rows, x, y, kPrefillRows, "prefill_products_int8", flops, true);
}

// A batched decode step's products with int8 weights: 8 windows of 5 beams, one decoder layer and the
// vocabulary projection. Across rows (row_panel_product.cc) against 8 rows at a time, and against the
// rows dequantised to fp32 for sgemm.
void batched_step_products_int8() {
  constexpr int kRows = 8 * kBeams;
  auto layers = std::make_shared<std::vector<auris::Linear>>();
  auto rows = std::make_shared<std::vector<auris::Int8Rows>>();
  double flops = 0;
  std::vector<LayerShape> shapes(std::begin(kDecoderLayerShapes), std::end(kDecoderLayerShapes));
  shapes.push_back({kVocab, kWidth});
  for (const LayerShape& s : shapes) {
    layers->push_back(fp16_layer(s.out, s.in, true, 40 + static_cast<unsigned>(layers->size())));
    rows->push_back(auris::quantize_int8_rows(layers->back().weight(), s.out, s.in));
    layers->back().convert(auris::WeightFormat::kInt8Rows);
    flops += 2.0 * kRows * s.out * s.in;
  }
  auto x = std::make_shared<std::vector<float>>(random_floats(static_cast<size_t>(kRows) * 4 * kWidth, 3));
  auto y = std::make_shared<std::vector<float>>(static_cast<size_t>(kRows) * kVocab);
  add_int8_streamed(layers, rows, x, y, kRows, "batched_step_products_int8", flops, true);
  add_int8_dequantised(layers, rows, x, y, kRows, "batched_step_products_int8", flops, false);
}

// A batched decode step's products with fp16 rows (float32 and float16 keep the decoder so): one
// decoder layer and the vocabulary projection, over 16 to 128 rows (3 to 25 windows of 5 beams, or a
// prefill).
// The 8-row blocks (over column blocks in L2) against the row panels (the rows' block widened once per
// call, row_panel_product.cc) at each count: stream_product_f16 takes the panels from
// kHalfRowPanelRows rows (48 on AVX2, 16 on AVX-512). At 40 rows also 8 rows at a time (a weight read
// per 8 rows) and the whole matrices widened for sgemm at each call.
void batched_step_products_f16() {
  constexpr int kMostRows = 128;
  auto layers = std::make_shared<std::vector<auris::Linear>>();
  auto rows = std::make_shared<std::vector<std::vector<uint16_t>>>();
  double flops_per_row = 0;
  std::vector<LayerShape> shapes(std::begin(kDecoderLayerShapes), std::end(kDecoderLayerShapes));
  shapes.push_back({kVocab, kWidth});
  for (const LayerShape& s : shapes) {
    layers->push_back(fp16_layer(s.out, s.in, true, 60 + static_cast<unsigned>(layers->size())));
    std::vector<uint16_t> half(static_cast<size_t>(s.out) * s.in);
    for (size_t i = 0; i < half.size(); ++i) half[i] = auris::float_to_fp16(layers->back().weight()[i]);
    rows->push_back(std::move(half));
    layers->back().convert(auris::WeightFormat::kFloat16Rows);
    flops_per_row += 2.0 * s.out * s.in;
  }
  auto x = std::make_shared<std::vector<float>>(random_floats(static_cast<size_t>(kMostRows) * 4 * kWidth, 3));
  auto y = std::make_shared<std::vector<float>>(static_cast<size_t>(kMostRows) * kVocab);
  using Kernel = void (*)(const float*, int, int, const uint16_t*, bool, int, int, const auris::StreamingOutput&);
  for (int n : {16, 25, 40, 64, 96, 128}) {
    for (const auto& [name, kernel] : {std::pair<const char*, Kernel>{"row_blocks", auris::half_product_by_row_blocks},
                                       std::pair<const char*, Kernel>{"row_panels", auris::half_product_by_row_panels}}) {
      const bool ours = (n >= auris::half_row_panel_rows()) == (kernel == auris::half_product_by_row_panels);
      add(std::string("batched_step_products_f16/") + name + "/rows:" + std::to_string(n), [=] {
        for (size_t p = 0; p < layers->size(); ++p) {
          const auris::Linear& l = (*layers)[p];
          kernel(x->data(), n, l.in_features(), (*rows)[p].data(), false, l.in_features(), l.out_features(),
                 {l.bias(), y->data(), l.out_features()});
        }
      }, flops_per_row * n, 0, ours);
    }
  }
  constexpr int kRows = 8 * kBeams;
  add("batched_step_products_f16/8_rows_at_a_time/rows:40", [=] {
    for (size_t p = 0; p < layers->size(); ++p) {
      const auris::Linear& l = (*layers)[p];
      for (int r0 = 0; r0 < kRows; r0 += 8)
        auris::stream_product_f16(x->data() + static_cast<size_t>(r0) * l.in_features(), 8, l.in_features(),
                                  (*rows)[p].data(), l.in_features(), l.out_features(),
                                  {l.bias(), y->data() + static_cast<size_t>(r0) * l.out_features(), l.out_features()});
    }
  }, flops_per_row * kRows, 0, false);
  add_f16_widened(layers, rows, x, y, kRows, "batched_step_products_f16", flops_per_row * kRows);
  // The same products through sgemm from fp32 copies widened once, at load (twice the weights'
  // memory): slower than the row panels at these row counts (docs/benchmarks/cpu-kernels.md).
  auto kept = std::make_shared<std::vector<std::vector<float>>>();
  for (size_t p = 0; p < layers->size(); ++p) {
    kept->emplace_back((*rows)[p].size());
    auris::fp16_to_float_n(reinterpret_cast<const uint8_t*>((*rows)[p].data()), (*rows)[p].size(), kept->back().data());
  }
  for (int n : {16, 40, 64}) {
    add("batched_step_products_f16/sgemm_over_fp32_kept_at_load/rows:" + std::to_string(n), [=] {
      for (size_t p = 0; p < layers->size(); ++p) {
        const auris::Linear& l = (*layers)[p];
        dnnl_sgemm('N', 'T', n, l.out_features(), l.in_features(), 1.0f, x->data(), l.in_features(), (*kept)[p].data(),
                   l.in_features(), 0.0f, y->data(), l.out_features());
      }
    }, flops_per_row * n, 0, false);
  }
}

// The vocabulary projection (fp16 rows, as float32 runs it). At a prefill only the last position's
// logits are used; beams share one read of the weights.
void vocabulary_projection() {
  auto vocab = std::make_shared<auris::Linear>(fp16_layer(kVocab, kWidth, false, 11));
  vocab->convert(auris::WeightFormat::kFloat16Rows);
  auto x = std::make_shared<std::vector<float>>(random_floats(static_cast<size_t>(kPrefillRows) * kWidth, 3));
  auto y = std::make_shared<std::vector<float>>(static_cast<size_t>(kPrefillRows) * kVocab);
  const double bytes = static_cast<double>(kVocab) * kWidth * 2;
  add("prefill_logits/last_position_only", [=] { vocab->forward(x->data(), 1, y->data()); }, 0, bytes, true);
  add("prefill_logits/every_position", [=] { vocab->forward(x->data(), kPrefillRows, y->data()); }, 0, bytes,
      false);
  add("beam_logits/5_beams_one_weight_read", [=] { vocab->forward(x->data(), kBeams, y->data()); }, 0, bytes,
      true);
  // The weight formats of the compute types, one row: float32 (fp16 rows), bfloat16, int8; fp32 rows
  // are what float32 would stream if the checkpoint's fp16 were widened at load.
  struct Format {
    const char* name;
    auris::WeightFormat format;
  };
  for (const Format& f : {Format{"fp32_rows", auris::WeightFormat::kFloat32},
                          Format{"fp16_rows", auris::WeightFormat::kFloat16Rows},
                          Format{"bf16_rows", auris::WeightFormat::kBfloat16Rows},
                          Format{"int8_rows", auris::WeightFormat::kInt8Rows}}) {
    auto layer = std::make_shared<auris::Linear>(fp16_layer(kVocab, kWidth, false, 11));
    layer->convert(f.format);
    add(std::string("vocab_weight_format/") + f.name, [=] { layer->forward(x->data(), 1, y->data()); }, 0,
        static_cast<double>(layer->weight_bytes()), f.format == auris::WeightFormat::kFloat16Rows);
  }
  add("beam_logits/one_read_per_beam", [=] {
    for (int b = 0; b < kBeams; ++b)
      vocab->forward(x->data() + static_cast<size_t>(b) * kWidth, 1, y->data() + static_cast<size_t>(b) * kVocab);
  }, 0, bytes, false);
}

// A beam-5 step's self-attention over 6 layers, 160 prompt positions and 40 of each beam's own: the
// prompt read once for all beams (kept in row 0 only) followed by each beam's own positions, or each
// beam reading its own copy of the whole prefix. Keys and values lie as SelfKVCache keeps them: each
// head of a row in its own run of kCapacity positions.
void beam_self_attention() {
  constexpr int kHeads = 8, kHead = 64, kPrompt = 160, kOwn = 40, kCapacity = 448;
  constexpr int kLength = kPrompt + kOwn, kPosition = kLength - 1;
  constexpr long kHeadStride = static_cast<long>(kCapacity) * kHead;
  struct Beams {
    std::vector<float> q, keys, values, out;
    std::vector<float> scratch;
    // Head 0's position `position`; head h lies kHeadStride further on.
    const float* at(const std::vector<float>& cache, int layer, int row, int position) const {
      return cache.data() + ((static_cast<size_t>(layer) * kBeams + row) * kHeads * kCapacity + position) * kHead;
    }
  };
  auto b = std::make_shared<Beams>();
  b->q = random_floats(static_cast<size_t>(kBeams) * 3 * kWidth, 4);
  b->keys = random_floats(static_cast<size_t>(kLayers) * kBeams * kCapacity * kWidth, 5);
  b->values = random_floats(b->keys.size(), 6);
  b->out.resize(static_cast<size_t>(kBeams) * kWidth);
  const int ldq = 3 * kWidth;
  add("beam_self_attention/shared_prompt_read_once", [=] {
    for (int l = 0; l < kLayers; ++l) {
      const float* own_keys[kBeams];
      const float* own_values[kBeams];
      for (int r = 0; r < kBeams; ++r) {
        own_keys[r] = b->at(b->keys, l, r, kPrompt);
        own_values[r] = b->at(b->values, l, r, kPrompt);
      }
      auris::attention_over_shared_prompt({b->q.data(), ldq, kBeams, b->at(b->keys, l, 0, 0), b->at(b->values, l, 0, 0),
                                           kPrompt, own_keys, own_values, kOwn, kHead, kHeads, kHead,
                                           kPosition - kPrompt, kHeadStride},
                                          b->out.data(), kWidth, b->scratch);
    }
  }, 0, 0, true);
  add("beam_self_attention/whole_prefix_per_beam", [=] {
    for (int l = 0; l < kLayers; ++l)
      for (int r = 0; r < kBeams; ++r)
        auris::attention({b->q.data() + static_cast<size_t>(r) * ldq, ldq, 1, b->at(b->keys, l, r, 0), kHead,
                          b->at(b->values, l, r, 0), kHead, kLength, kHeads, kHead, kPosition, kHeadStride, kHeadStride},
                         b->out.data() + static_cast<size_t>(r) * kWidth, kWidth, b->scratch);
  }, 0, 0, false);
}

// One beam-1 decode step's products with fp16 weights, as float32 runs them: 6 layers x {QKV, out,
// cross Q, cross out, MLP in, MLP out} and the vocabulary.
struct StepProducts {
  struct Layer {
    int out, in;
    std::vector<uint16_t> weight;
    std::vector<float> bias;
  };
  std::vector<Layer> layers;
  std::vector<float> x, y;

  StepProducts() {
    const std::pair<int, int> shapes[] = {{3 * kWidth, kWidth}, {kWidth, kWidth},     {kWidth, kWidth},
                                          {kWidth, kWidth},     {4 * kWidth, kWidth}, {kWidth, 4 * kWidth}};
    unsigned seed = 20;
    for (int l = 0; l < kLayers; ++l)
      for (const auto& [out, in] : shapes) layers.push_back(make(out, in, seed++));
    layers.push_back(make(kVocab, kWidth, seed));
    x = random_floats(4 * kWidth, 3);
    y.resize(kVocab);
  }
  static Layer make(int out, int in, unsigned seed) {
    Layer l{out, in, {}, random_floats(out, seed + 1000)};
    for (float w : random_floats(static_cast<size_t>(out) * in, seed)) l.weight.push_back(auris::float_to_fp16(w));
    return l;
  }
  double bytes() const {
    double b = 0;
    for (const Layer& l : layers) b += 2.0 * l.weight.size();
    return b;
  }
  // Output columns [c0, c1) of layer l: the rows [c0, c1) of its weights.
  void columns(const Layer& l, int c0, int c1, float* y_out) const {
    auris::stream_product_f16(x.data(), 1, l.in, l.weight.data() + static_cast<size_t>(c0) * l.in, l.in, c1 - c0,
                              {l.bias.data() + c0, y_out + c0, l.out});
  }
  // The step as auris runs it: every product on OpenMP's threads, into buffers kept across steps.
  void run() {
    for (const Layer& l : layers) columns(l, 0, l.out, y.data());
  }
};

// The persistent pool against threads started for every product, each taking a share of the columns.
void thread_pool() {
  auto step = std::make_shared<StepProducts>();
  const double bytes = step->bytes();
  add("decode_step_threads/openmp_persistent_pool", [=] { step->run(); }, 0, bytes, true);
  add("decode_step_threads/new_threads_per_product", [=] {
    const int threads = omp_get_max_threads();
    for (const StepProducts::Layer& l : step->layers) {
      std::vector<std::thread> started;
      for (int t = 0; t < threads; ++t)
        started.emplace_back([&, t] {
          omp_set_num_threads(1);
          step->columns(l, static_cast<int>(static_cast<long>(l.out) * t / threads),
                        static_cast<int>(static_cast<long>(l.out) * (t + 1) / threads), step->y.data());
        });
      for (std::thread& th : started) th.join();
    }
  }, 0, bytes, false);
}

// Outputs written to buffers kept across steps, or to a new buffer per product (a tensor per op).
void step_allocation() {
  auto step = std::make_shared<StepProducts>();
  const double bytes = step->bytes();
  add("decode_step_buffers/kept_across_steps", [=] { step->run(); }, 0, bytes, true);
  add("decode_step_buffers/new_buffer_per_product", [=] {
    for (const StepProducts::Layer& l : step->layers) {
      std::vector<float> y(l.out);
      step->columns(l, 0, l.out, y.data());
      benchmark::DoNotOptimize(y.data());
    }
  }, 0, bytes, false);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  gemm_library_and_packing();
  fused_bias_gelu();
  encoder_attention();
  cross_kv_one_gemm();
  prefill_products();
  prefill_products_int8();
  batched_step_products_int8();
  batched_step_products_f16();
  vocabulary_projection();
  beam_self_attention();
  thread_pool();
  step_allocation();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
