#include "whisper/cpu_window_engine.h"

#include <chrono>

namespace auris {

void CpuWindowEngine::set_window(const LogMel& window) {
  const auto start = std::chrono::steady_clock::now();
  encoder_.forward(window, encoder_out_);
  encoder_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  inference_.set_window(encoder_out_.data());
  ++encoder_windows_;
}

EngineCounters CpuWindowEngine::counters() const {
  EngineCounters c;
  c.encoder_windows = encoder_windows_;
  c.cross_kv_rows = model_.cross_kv_all_layers.rows_multiplied();
  for (const DecoderBlock& b : model_.decoder_blocks) {
    c.cross_query_rows += b.cross_query.rows_multiplied();
    c.self_qkv_rows += b.qkv.rows_multiplied();
  }
  c.encoder_seconds = encoder_seconds_;
  const WindowInference::StageTimes& t = inference_.stage_times();
  c.cross_kv_seconds = t.cross_kv_seconds;
  c.prefills = t.prefills;
  c.prefill_seconds = t.prefill_seconds;
  c.decode_steps = t.steps;
  c.decode_rows = t.step_rows;
  c.decode_seconds = t.step_seconds;
  return c;
}

}  // namespace auris
