// Batched decoding's scaling: the same windows decoded with 1, 2, 4, ... windows at a time, as one
// JSON line per batch size on stdout: wall seconds, audio seconds per wall second, encoder seconds,
// decoder passes (steps), the rows they carried, and the time of an average pass. bench/batch.py
// runs it, adds the bandwidth floor (bench/floors.cc) and draws the curve.
// Usage: auris_batch_scaling MODEL COMPUTE_TYPE BEAM(0 = greedy) REPEATS "B1 B2 ..." AUDIO...
// Each AUDIO file is one window: its first 30 s, decoded as Transcriber::decode() does.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "api/model_impl.h"
#include "auris/audio.h"
#include "audio/mel_source.h"
#include "auris/error.h"
#include "batch/window_batch.h"
#include "decoding/decoding_task.h"

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: auris_batch_scaling MODEL COMPUTE_TYPE BEAM REPEATS \"B1 B2 ...\" AUDIO...\n");
    return 2;
  }
  try {
    const auto model = auris::Model::load(argv[1], auris::parse_compute_type(argv[2]));
    const int beam = std::atoi(argv[3]);
    const int repeats = std::max(1, std::atoi(argv[4]));
    std::vector<int> sizes;
    std::istringstream size_list(argv[5]);
    for (int b; size_list >> b;) sizes.push_back(b);
    const auris::ModelImpl& m = model_impl(*model);
    std::vector<auris::LogMel> windows;
    double audio_s = 0;
    for (int i = 6; i < argc; ++i) {
      const std::vector<float> samples = auris::load_audio(argv[i]);
      auris::InMemoryMel mel(samples, m.weights.dims.n_mels);
      const int frames = std::min(auris::kChunkFrames, mel.content_frames());
      windows.push_back(mel.window(0, frames));
      audio_s += frames / 100.0;
    }
    auris::DecodingOptions options;
    if (beam > 0) options.beam_size = beam;
    for (int size : sizes) {
      std::vector<double> walls;
      auris::EngineCounters first, last;
      for (int r = 0; r < repeats; ++r) {
        auris::WindowBatch batch(m.weights, size);
        first = batch.counters();
        const auto start = std::chrono::steady_clock::now();
        batch.run(static_cast<int>(windows.size()), [&](auris::WindowEngine& engine, int job) {
          engine.set_window(windows[job]);
          auris::DecodingTask(m.tokenizer, m.weights.dims, options).run(engine);
        });
        walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        last = batch.counters();
      }
      std::vector<double> sorted = walls;
      std::sort(sorted.begin(), sorted.end());
      const double wall = sorted[sorted.size() / 2];
      const long long steps = last.decode_steps - first.decode_steps;
      const long long rows = last.decode_rows - first.decode_rows;
      std::printf(
          "{\"batch\": %d, \"windows\": %zu, \"audio_s\": %.2f, \"threads\": %d, \"wall_s\": {\"median\": %.4f, \"min\": "
          "%.4f, \"max\": %.4f}, \"audio_s_per_s\": %.3f, \"encoder_s\": %.4f, \"prefill_s\": %.4f, \"decode_s\": %.4f, "
          "\"steps\": %lld, \"rows\": %lld, \"step_ms\": %.4f, \"decode_weight_bytes\": %zu, \"cross_kv_bytes_per_row\": "
          "%zu}\n",
          size, windows.size(), audio_s, omp_get_max_threads(), wall, sorted.front(), sorted.back(), audio_s / wall,
          last.encoder_seconds - first.encoder_seconds, last.prefill_seconds - first.prefill_seconds,
          last.decode_seconds - first.decode_seconds, steps, rows,
          steps ? 1e3 * (last.decode_seconds - first.decode_seconds) / steps : 0.0, model->info().decode_weight_bytes,
          model->info().cross_kv_cache_bytes);
      std::fflush(stdout);
    }
    return 0;
  } catch (const auris::Error& e) {
    std::fprintf(stderr, "auris_batch_scaling: %s\n", e.what());
    return 1;
  }
}
