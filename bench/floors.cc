// The machine's floors for bench/speed.py, as one JSON object on stdout:
//  - peak GEMM throughput of the library auris uses (oneDNN; a large square sgemm), GFLOP/s
//  - memory bandwidth: a streaming read of a buffer far larger than the caches, GB/s
//  - the decode step's weight-streaming product (Linear, fp32 weights, 1 and 5 rows) against
//    oneDNN's sgemm on the same shapes, which is why the engine uses its own kernel there.
// Each figure is the median of several repeats, with min and max. Threads: OMP_NUM_THREADS or all.
// Usage: auris_floors [--quick]
#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/linear.h"

namespace {

struct Spread {
  double median, min, max;
};

// Runs fn `repeats` times (after one warm-up) and returns the spread of `work / seconds`.
Spread rate(int repeats, double work, const std::function<void()>& fn) {
  fn();
  std::vector<double> rates;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(work / s);
  }
  std::sort(rates.begin(), rates.end());
  return {rates[rates.size() / 2], rates.front(), rates.back()};
}

std::string json(const Spread& s) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "{\"median\": %.3f, \"min\": %.3f, \"max\": %.3f}", s.median, s.min, s.max);
  return buf;
}

std::vector<float> random_floats(size_t n) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

Spread gemm_gflops(int n, int repeats) {
  const std::vector<float> a = random_floats(static_cast<size_t>(n) * n), b = random_floats(static_cast<size_t>(n) * n);
  std::vector<float> c(static_cast<size_t>(n) * n);
  return rate(repeats, 2.0 * n * n * n / 1e9, [&] {
    dnnl_sgemm('N', 'T', n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
  });
}

// Sums a buffer with independent vector accumulators per thread: the loads are the whole cost.
Spread read_bandwidth_gbs(size_t bytes, int repeats) {
  const size_t n = bytes / sizeof(float);
  std::vector<float> buf(n);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) buf[i] = static_cast<float>(i & 1023);
  volatile float sink = 0;
  return rate(repeats, static_cast<double>(n * sizeof(float)) / 1e9, [&] {
    float total = 0;
#pragma omp parallel for schedule(static) reduction(+ : total)
    for (size_t block = 0; block < n / 64; ++block) {
      float acc[16] = {};
      const float* p = buf.data() + block * 64;
      for (int i = 0; i < 64; i += 16)
        for (int l = 0; l < 16; ++l) acc[l] += p[i + l];
      for (int l = 0; l < 16; ++l) total += acc[l];
    }
    sink = total;
  });
}

// out x in weight, `rows` inputs: own Linear kernel vs OpenBLAS, in GB/s of weights streamed.
std::string decode_product(int out, int in, int rows, int repeats) {
  auris::Tensor w, b;
  w.shape = {out, in};
  w.data = random_floats(static_cast<size_t>(out) * in);
  const auris::Linear linear(w, b);
  const std::vector<float> x = random_floats(static_cast<size_t>(rows) * in);
  std::vector<float> y(static_cast<size_t>(rows) * out);
  const double gb = static_cast<double>(out) * in * sizeof(float) / 1e9;
  const Spread own = rate(repeats, gb, [&] { linear.forward(x.data(), rows, y.data()); });
  const Spread blas = rate(repeats, gb, [&] {
    dnnl_sgemm('N', 'T', rows, out, in, 1.0f, x.data(), in, linear.weight(), in, 0.0f, y.data(), out);
  });
  char buf[160];
  std::snprintf(buf, sizeof buf, "{\"out\": %d, \"in\": %d, \"rows\": %d, \"own_gbs\": ", out, in, rows);
  return buf + json(own) + ", \"onednn_gbs\": " + json(blas) + "}";
}

}  // namespace

// --quick: smaller sizes and fewer repeats; --no-products: the two floors alone (what the harness
// measures again before each case, beside that case's runs).
int main(int argc, char** argv) {
  bool quick = false, products = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else if (std::strcmp(argv[i], "--no-products") == 0) {
      products = false;
    } else {
      std::fprintf(stderr, "auris_floors: unknown option '%s' (options: --quick, --no-products)\n", argv[i]);
      return 2;
    }
  }
  const int repeats = quick ? 3 : 9;
  std::printf("{\n  \"threads\": %d,\n", omp_get_max_threads());
  const dnnl_version_t* v = dnnl_version();
  std::printf("  \"blas\": \"oneDNN %d.%d.%d (%s)\",\n", v->major, v->minor, v->patch, v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other");
  std::printf("  \"sgemm_gflops\": %s,\n", json(gemm_gflops(quick ? 1024 : 3072, repeats)).c_str());
  std::printf("  \"read_gbs\": %s%s\n", json(read_bandwidth_gbs(quick ? (64u << 20) : (1024u << 20), repeats)).c_str(),
              products ? "," : "");
  if (!products) {
    std::printf("}\n");
    return 0;
  }
  std::printf("  \"decode_products\": [\n");
  // The largest decode-step products: the vocabulary projection and the MLP of tiny/base.
  const int shapes[][3] = {{51864, 384, 1}, {51864, 384, 5}, {1536, 384, 1}, {51865, 512, 1}, {2048, 512, 1}};
  for (size_t i = 0; i < std::size(shapes); ++i)
    std::printf("    %s%s\n", decode_product(shapes[i][0], shapes[i][1], shapes[i][2], repeats).c_str(),
                i + 1 < std::size(shapes) ? "," : "");
  std::printf("  ]\n}\n");
  return 0;
}
