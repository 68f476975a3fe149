// What openai's logit filters (logit_filters.h) do to one decoding step, as data: the tokens every
// row loses, each row's masked ranges, and whether the timestamp rule then runs. The host applies
// it to a step's logits (apply_step_rules); a device engine applies the same data inside its captured
// step, so that the filters are defined once, here and in logit_filters.cc.
#pragma once

#include <optional>
#include <span>
#include <vector>

namespace auris {

struct TokenRange {
  int begin = 0;  // [begin, end), Python slice bounds: clamped to the vocabulary when applied
  int end = 0;
};

struct StepRules {
  // Before the masks: CTranslate2's repetition penalty. Each row's logits of penalized_tokens[row]
  // are divided by it (multiplied where negative). 1: none, and penalized_tokens stays empty.
  float repetition_penalty = 1.0f;
  std::vector<std::vector<int>> penalized_tokens;
  std::vector<int> masked_tokens;                 // -inf in every row
  std::vector<std::vector<TokenRange>> row_masks;  // -inf in one row; one list per row
  // After the masks: where the timestamps begin, when openai's rule applies (a row whose
  // timestamps together outweigh its every text token loses its text tokens).
  std::optional<int> timestamp_begin;
};

// Masks [rows x n_vocab] logits in place with -inf as `rules` say (rows = rules.row_masks.size()).
void apply_step_rules(const StepRules& rules, std::span<float> logits, int n_vocab);

}  // namespace auris
