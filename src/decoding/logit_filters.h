// The rules openai/whisper applies to each step's logits before choosing tokens (decoding.py's
// LogitFilter classes). Each works on a batch: tokens holds each row's whole context (start
// sequence, prompt, prefix and the tokens sampled so far). A filter states its masks as StepRules
// (step_rules.h), which the host applies to logits or a device engine inside its step.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "decoding/step_rules.h"

namespace auris {

using TokenRows = std::vector<std::vector<int>>;

class LogitFilter {
 public:
  virtual ~LogitFilter() = default;
  // Adds this filter's masks for the rows' next token to `rules` (whose row_masks has a list per
  // row). Filters add in openai's order; the timestamp rule's comparison runs after every mask.
  virtual void add_rules(const TokenRows& tokens, StepRules& rules) const = 0;
  // Masks [rows x n_vocab] logits in place with -inf: this filter alone, on the host.
  void apply(std::span<float> logits, int n_vocab, const TokenRows& tokens) const;
};

// At the first sampled position, forbids a blank start: the tokens of " " and <|endoftext|>.
class SuppressBlank : public LogitFilter {
 public:
  SuppressBlank(std::vector<int> blank_tokens, int eot, int sample_begin);
  void add_rules(const TokenRows& tokens, StepRules& rules) const override;

 private:
  std::vector<int> suppressed_;
  int sample_begin_;
};

// Forbids a fixed set of tokens at every step.
class SuppressTokens : public LogitFilter {
 public:
  explicit SuppressTokens(std::vector<int> tokens);
  void add_rules(const TokenRows& tokens, StepRules& rules) const override;

 private:
  std::vector<int> suppressed_;
};

// CTranslate2's repetition penalty (faster-whisper's repetition_penalty): every token sampled so far
// in the row has its logit divided by the penalty where positive, multiplied where negative.
class RepetitionPenalty : public LogitFilter {
 public:
  RepetitionPenalty(float penalty, int sample_begin);
  void add_rules(const TokenRows& tokens, StepRules& rules) const override;

 private:
  float penalty_;
  int sample_begin_;
};

// CTranslate2's no_repeat_ngram_size (faster-whisper's): a token that would complete an n-gram
// already sampled in the row is forbidden.
class NoRepeatNgram : public LogitFilter {
 public:
  NoRepeatNgram(int ngram_size, int sample_begin);
  void add_rules(const TokenRows& tokens, StepRules& rules) const override;

 private:
  int ngram_size_;
  int sample_begin_;
};

// Whisper's timestamp grammar: timestamps come in pairs (except right before <|endoftext|>), never
// decrease, a segment must not be empty, the first token is a timestamp no later than
// max_initial_timestamp_index, and when the timestamps together are more probable than any single
// text token, a timestamp is sampled.
class ApplyTimestampRules : public LogitFilter {
 public:
  struct Tokens {
    int eot;
    int no_timestamps;
    int timestamp_begin;
  };
  // no_end_before_index (an auris addition): after a pair earlier than this timestamp index,
  // <|endoftext|> is forbidden too (DecodingOptions::no_end_before).
  ApplyTimestampRules(Tokens special, int sample_begin, std::optional<int> max_initial_timestamp_index,
                      std::optional<int> no_end_before_index = std::nullopt);
  void add_rules(const TokenRows& tokens, StepRules& rules) const override;

 private:
  Tokens special_;
  int sample_begin_;
  std::optional<int> max_initial_timestamp_index_;
  std::optional<int> no_end_before_index_;
};

}  // namespace auris
