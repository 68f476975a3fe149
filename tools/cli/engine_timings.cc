#include "engine_timings.h"

#include <algorithm>
#include <vector>

#include <nlohmann/json.hpp>

namespace auris::cli {

namespace {
double per(double seconds, long long count) { return count > 0 ? 1000.0 * seconds / static_cast<double>(count) : 0.0; }

// Median of the calls after the first, which also pays the first use of cuBLAS and of the kernels'
// modules; null where the device measured fewer than two.
nlohmann::json steady_median(std::vector<float> ms) {
  if (ms.size() < 2) return nullptr;
  ms.erase(ms.begin());
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}
}  // namespace

std::string engine_timings_json(const EngineCounters& c, const ModelInfo& model, double model_load_seconds) {
  nlohmann::json j;
  j["model_load_s"] = model_load_seconds;
  j["encoder_windows"] = c.encoder_windows;
  j["encoder_ms_per_window"] = per(c.encoder_seconds, c.encoder_windows);
  j["cross_kv_ms_per_window"] = per(c.cross_kv_seconds, c.encoder_windows);
  j["prefills"] = c.prefills;
  j["prefill_ms"] = per(c.prefill_seconds, c.prefills);
  j["decode_steps"] = c.decode_steps;
  j["decode_rows"] = c.decode_rows;
  j["decode_ms_per_step"] = per(c.decode_seconds, c.decode_steps);
  j["mean_rows_per_step"] = c.decode_steps > 0 ? static_cast<double>(c.decode_rows) / c.decode_steps : 0.0;
  j["encoder_s"] = c.encoder_seconds;
  j["cross_kv_s"] = c.cross_kv_seconds;
  j["prefill_s"] = c.prefill_seconds;
  j["decode_s"] = c.decode_seconds;
  j["step_host_waits"] = c.step_host_waits;
  j["device_step_tails"] = c.device_step_tails;
  j["device_ms"] = {{"encoder_per_window", steady_median(c.encoder_device_ms)},
                    {"prefill", steady_median(c.prefill_device_ms)},
                    {"decode_step", steady_median(c.step_device_ms)},
                    {"calls", {c.encoder_device_ms.size(), c.prefill_device_ms.size(), c.step_device_ms.size()}}};
  j["model"] = {{"n_mels", model.n_mels},
                {"n_vocab", model.n_vocab},
                {"n_audio_layer", model.n_audio_layer},
                {"n_audio_state", model.n_audio_state},
                {"n_text_layer", model.n_text_layer},
                {"n_text_state", model.n_text_state},
                {"compute_type", compute_type_name(model.compute_type)},
                {"decode_weight_bytes", model.decode_weight_bytes},
                {"cross_kv_cache_bytes", model.cross_kv_cache_bytes}};
  return j.dump();
}

}  // namespace auris::cli
