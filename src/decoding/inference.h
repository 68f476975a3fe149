// What the decoding algorithms need from a model, as openai/whisper's Inference: logits for the
// next token of each sequence, with the decoder's caches kept behind the interface. One Inference
// is bound to one 30-s window (its cross-attention K/V computed once); the decoders call it for
// every step, beam and temperature retry of that window.
#pragma once

#include <vector>

#include "decoding/step_proposals.h"
#include "decoding/step_rules.h"

namespace auris {

class Inference {
 public:
  virtual ~Inference() = default;

  // Logits of the last position of each row, written to logits_out [rows x n_vocab()].
  // The first call after reset() sees each row's whole prompt and runs it as one prefill; later calls
  // consume only each row's newest token (rows keep equal lengths).
  // At the prefill only, extra_positions asks also for the logits of those earlier positions, written
  // once (the rows are equal at a prefill) to *extra_logits_out [extra_positions.size() x n_vocab()]:
  // decoding reads the no-speech probability at the <|startoftranscript|> position (openai:
  // logits[:, sot_index]) and the log-probabilities of forced tokens. A position may be the last.
  // Later calls pass none.
  virtual void logits(const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out,
                      const std::vector<int>& extra_positions = {}, std::vector<float>* extra_logits_out = nullptr) = 0;
  // A decode step's tail on the engine's device: the logits a later call of logits() would give,
  // filtered by `rules` and reduced to k proposals a row, so that only these cross to the host.
  // Returns false where the engine has no such tail, or not for these rules or before the prefill:
  // the caller then calls logits() and filters and chooses on the host, with the same result.
  virtual bool propose(const std::vector<std::vector<int>>& /*tokens*/, const StepRules& /*rules*/,
                       Selection /*selection*/, int /*k*/, StepProposals& /*out*/) {
    return false;
  }
  // Row i continues from the self-attention cache of source_rows[i] (beam reordering).
  virtual void rearrange_kv_cache(const std::vector<int>& source_rows) = 0;
  // Forgets the self-attention cache (not the window's cross K/V) before the next decode.
  virtual void reset() = 0;
  virtual int n_vocab() const = 0;
};

}  // namespace auris
