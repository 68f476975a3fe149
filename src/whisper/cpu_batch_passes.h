// BatchPasses on the CPU: each slot keeps its cross-attention K/V and self-attention cache; the
// windows of a round are encoded two at a time, and every slot's prefill or step runs in one
// Decoder::forward, each projection reading its weights once for the rows of every window.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "whisper/batch_passes.h"
#include "whisper/decoder.h"
#include "whisper/encoder.h"
#include "whisper/kv_cache.h"

namespace auris {

class CpuBatchPasses final : public BatchPasses {
 public:
  // Throws auris::Error below 1 slot.
  CpuBatchPasses(const WhisperModel& model, int slots);

  int slots() const override { return static_cast<int>(slots_.size()); }
  int n_vocab() const override { return model_.dims.n_vocab; }
  void encode(std::vector<Encode>& windows) override;
  void decode(std::vector<Decode>& calls) override;
  void align(int slot, const std::vector<int>& tokens, const std::vector<int>& logit_positions,
             const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
             std::vector<float>& cross_scores) override;
  void rearrange(int slot, const std::vector<int>& source_rows) override;
  void reset(int slot) override;
  bool has_window(int slot) const override { return slots_[slot].has_window; }
  // Rows as the model's projections count them.
  EngineCounters counters() const override;

 private:
  struct Slot {
    CrossKVCache cross;
    std::unique_ptr<SelfKVCache> self;  // sized for the most rows this slot has decoded
    std::vector<float> prefill_logits;
    bool has_window = false;
  };
  void ensure_rows(Slot& slot, int rows);

  const WhisperModel& model_;
  Encoder encoder_;
  Decoder decoder_;
  std::vector<Slot> slots_;
  // An encoder pass's outputs and the cross K/V projection's scratch: used by one slot after another,
  // so a batch holds one pass's worth, not one per slot.
  std::vector<std::vector<float>> encoder_outputs_;
  std::vector<float> cross_projection_;
  mutable std::mutex counters_mutex_;
  EngineCounters counters_;
};

}  // namespace auris
