// The arithmetic of many windows decoded together on one device, which batch/window_batch.h serves
// in rounds. Each of slots() slots holds one window: its cross-attention K/V, computed once by
// encode(), and its self-attention cache. encode() and decode() take many slots at once, so that a
// pass reads the weights once for all of them (the CPU's Encoder and Decoder; on CUDA one captured
// step over every slot's rows). One thread calls everything but rearrange() and reset(), which a
// slot's own thread calls for its slot while no pass runs (other slots' threads may be in them too).
#pragma once

#include <exception>
#include <utility>
#include <vector>

#include "audio/mel.h"
#include "decoding/step_proposals.h"
#include "decoding/step_rules.h"
#include "whisper/engine_counters.h"

namespace auris {

class BatchPasses {
 public:
  struct Encode {
    int slot;
    const LogMel* window;
    std::exception_ptr error;  // set when the window could not be encoded
  };
  // A slot's Inference::logits call: its prefill when the slot's cache is empty (every row the same
  // prompt), else a step (each row's newest token). Or, where proposes(), its Inference::propose
  // call (rules set): a step whose filters and choice run on the device, into *proposals, or, when
  // the passes could not take it (proposed stays false), nothing at all.
  struct Decode {
    int slot = 0;
    const std::vector<std::vector<int>>* rows = nullptr;
    const std::vector<int>* extra_positions = nullptr;
    std::vector<float>* logits = nullptr;
    std::vector<float>* extra_logits = nullptr;
    const StepRules* rules = nullptr;
    Selection selection = Selection::kArgmax;
    int k = 1;
    StepProposals* proposals = nullptr;
    bool proposed = false;
    std::exception_ptr error;  // set when this call failed; the others still ran
  };

  virtual ~BatchPasses() = default;
  virtual int slots() const = 0;
  virtual int n_vocab() const = 0;
  // Whether decode() takes Inference::propose calls.
  virtual bool proposes() const { return false; }
  // Encodes each window into its slot (which forgets its decode); a window that does not fit the
  // model fails alone.
  virtual void encode(std::vector<Encode>& windows) = 0;
  // Every call's logits from one decoder pass where the device can; a call whose tokens are bad
  // fails alone.
  virtual void decode(std::vector<Decode>& calls) = 0;
  // WindowEngine::alignment_pass over a slot's window. Throws auris::Error.
  virtual void align(int slot, const std::vector<int>& tokens, const std::vector<int>& logit_positions,
                     const std::vector<std::pair<int, int>>& heads, std::vector<float>& logits,
                     std::vector<float>& cross_scores) = 0;
  // Inference::rearrange_kv_cache and reset for one slot.
  virtual void rearrange(int slot, const std::vector<int>& source_rows) = 0;
  virtual void reset(int slot) = 0;
  virtual bool has_window(int slot) const = 0;
  // Windows encoded, decoder passes (decode_steps) and their rows, stage times so far; read it
  // while no pass runs.
  virtual EngineCounters counters() const = 0;
};

}  // namespace auris
