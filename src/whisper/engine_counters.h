// Counters and switches that make the decoder's cache design observable: tests and benchmarks
// read them through src/api/engine_access.h; they are not part of the public API.
#pragma once

#include <vector>

namespace auris {

// encoder_windows counts one engine's windows; the row counts are kept by the model's projections,
// so they add up over every engine sharing the model: compare differences.
struct EngineCounters {
  long long encoder_windows = 0;
  long long cross_kv_rows = 0;      // rows multiplied by the cross-attention K/V projection
  long long cross_query_rows = 0;   // rows multiplied by the cross-attention Q projections
  long long self_qkv_rows = 0;      // rows multiplied by the fused self-attention QKV projections

  // Wall time per stage of one engine (the benchmark's per-stage figures).
  double encoder_seconds = 0;   // encoder forward passes (encoder_windows of them)
  double cross_kv_seconds = 0;  // the cross-attention K/V projection, once per window
  long long prefills = 0;       // prompt passes, one per decode of a window
  double prefill_seconds = 0;
  long long decode_steps = 0;   // decode steps; each advances every beam (row) by one token
  long long decode_rows = 0;    // sum of rows over those steps
  double decode_seconds = 0;
  // Times the host waited for the device in decode steps and beam reorders (CUDA): one per step is
  // the design, the wait for the step's logits.
  long long step_host_waits = 0;
  // Decode steps whose tail (logit filters, log-softmax, choice) ran on the device (CUDA), so that
  // only each row's proposed tokens came back.
  long long device_step_tails = 0;

  // Each call's device time in ms (CUDA events), the first kDeviceTimesKept of each stage; empty on
  // the CPU. Medians of these are the GPU benchmark's per-stage figures, free of the host's noise.
  static constexpr size_t kDeviceTimesKept = 4096;
  std::vector<float> encoder_device_ms, prefill_device_ms, step_device_ms;
};

// Switches that turn off parts of the design, so a benchmark can show what each saves, and CUDA
// experiments waiting for a GPU to measure them. They change speed only, never the tokens (the
// experiments' fp16 arithmetic may round differently). Off by default.
struct EngineAblations {
  // Recompute every layer's cross-attention K/V from the encoder output at each decode step, as a
  // decoder without a cross-attention cache does.
  bool recompute_cross_kv_each_step = false;
  // Attend over the whole static self-attention cache (masked) instead of only its filled prefix.
  bool attend_full_self_cache = false;
  // CUDA in fp16 and bf16, an experiment: the encoder's self-attention in one flash-attention kernel
  // instead of two cuBLAS products around a softmax that writes every score. Not the default until
  // a GPU has measured it faster (docs/benchmarks/gpu.md); the CPU engine ignores it.
  bool fused_encoder_attention = false;
  // CUDA in fp16 and bf16, the same experiment through cuDNN's fused attention (cudnn_attention.h),
  // which the project's GPU issue names beside a kernel of our own.
  bool cudnn_encoder_attention = false;
  // CUDA: a decode step's tail on the host, as on the CPU: the logits copied back, filtered and
  // chosen from there, instead of in the step's graph (same tokens).
  bool host_step_tail = false;
  // CUDA experiments on the decode step, off until a GPU has measured them faster: the layer norms,
  // residual adds and cache writes inside the step's gemv kernels (8 kernels a layer instead of 12),
  // and each step kernel launched to overlap the one before it (sm_90: programmatic dependent
  // launch, the next gemv pulling its weights toward L2 meanwhile). The same tokens.
  bool fused_decode_step = false;
  bool programmatic_launch = false;
};

}  // namespace auris
