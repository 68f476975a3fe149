// Decoding of one 30-s window as openai/whisper's DecodingTask: checks the options, builds the
// start tokens (<|startofprev|> prompt, start sequence, prefix), detects the language when it is
// not given, runs the sampling loop (greedy, best-of-N sampling or beam search) through the logit
// filters, and ranks the candidates into a DecodingResult.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "auris/decoding.h"
#include "decoding/inference.h"
#include "decoding/logit_filters.h"
#include "model/model_dims.h"
#include "tokenizer/tokenizer.h"

namespace auris {

// Python's truthiness of a prompt, prefix or suppress_tokens value, as openai tests them: "" and []
// count as absent.
bool present(const std::optional<TextOrTokens>& value);

class DecodingTask {
 public:
  // Throws auris::Error for options that contradict each other or the model.
  DecodingTask(const Tokenizer& tokenizer, const ModelDims& dims, DecodingOptions options);

  // Decodes the window `inference` is bound to. Resets the inference's caches first.
  DecodingResult run(Inference& inference);

  const std::vector<int>& initial_tokens() const { return initial_tokens_; }
  int sample_begin() const { return static_cast<int>(initial_tokens_.size()); }
  int sot_index() const { return sot_index_; }
  int sample_len() const { return sample_len_; }
  int n_group() const { return n_group_; }
  // The sorted token ids SuppressTokens masks (empty when that filter is off).
  const std::vector<int>& suppress_tokens() const { return suppress_tokens_; }
  std::optional<int> max_initial_timestamp_index() const { return max_initial_timestamp_index_; }

 private:
  void verify_options();
  std::vector<int> tokens_of(const TextOrTokens& text_or_tokens, const char* what) const;
  std::vector<int> build_initial_tokens() const;
  std::vector<int> build_suppress_tokens() const;
  // What the logit filters do to the rows' next token.
  StepRules step_rules(const TokenRows& tokens) const;
  // The sum of the forced tokens' log-probabilities, each from its position's logits (forced_logits,
  // [forced x n_vocab]) under the logit filters; unset where one of them is forbidden.
  std::optional<float> forced_logprob(const std::vector<int>& start, const std::vector<int>& forced,
                                      std::span<const float> forced_logits, int n_vocab) const;

  const Tokenizer& tokenizer_;
  ModelDims dims_;
  DecodingOptions options_;
  Task task_ = Task::kTranscribe;
  std::optional<int> language_token_;  // the given language, resolved
  int n_group_ = 1;
  int n_ctx_ = 0;
  int sample_len_ = 0;
  std::vector<int> sot_sequence_;
  std::vector<int> initial_tokens_;
  int sot_index_ = 0;
  std::vector<int> suppress_tokens_;
  std::optional<int> max_initial_timestamp_index_;
  std::vector<std::unique_ptr<LogitFilter>> logit_filters_;
};

}  // namespace auris
