// y = x W^T + b (optionally followed by exact GELU, fused) through oneDNN's matmul, with W packed
// into oneDNN's layout once, at model load. The products over many rows (the encoder, the window's
// cross K/V) run here: oneDNN picks the widest kernels the CPU has at run time, fuses bias and GELU,
// and has bf16 kernels; OpenBLAS's sgemm took 0.87-1.13x its time on the encoder's shapes
// (bench/levers.py). Three precisions:
//  - kFloat32: fp32 operands
//  - kBfloat16: W and x rounded to bf16, fp32 accumulation; needs AVX-512 BF16 (or AMX), else the
//    constructor throws and callers keep fp32 (supported() tells beforehand)
//  - kInt8: W in 7-bit integers with a scale per output, x in 8-bit integers with a scale per row
//    (taken at each call), products summed in int32 (oneDNN's u8 x s8 kernels, vpmaddubsw on AVX2,
//    VNNI where the CPU has it). 7 bits because vpmaddubsw adds two products in int16: with |w| <= 63
//    that sum cannot saturate, so every CPU gives the same integers.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

namespace auris {

enum class GemmPrecision { kFloat32, kBfloat16, kInt8 };

class PackedGemm {
 public:
  // weight [out x in] fp32, row-major; bias [out] or empty. Throws auris::Error where this CPU has
  // no kernel for `precision`.
  PackedGemm(const float* weight, int out, int in, const std::vector<float>& bias, GemmPrecision precision);
  ~PackedGemm();

  // Whether this CPU runs `precision` (probed once).
  static bool supported(GemmPrecision precision);

  // y[rows x out] (row stride ldy) = x[rows x in] (row stride ldx) W^T + b, then GELU if asked.
  void forward(const float* x, int rows, int ldx, float* y, int ldy, bool gelu) const;
  GemmPrecision precision() const { return precision_; }

 private:
  struct State;
  void forward_int8(const float* x, int rows, int ldx, float* y, int ldy, bool gelu) const;

  int out_, in_;
  GemmPrecision precision_;
  std::unique_ptr<State> state_;
};

}  // namespace auris
