#include "decoding/logit_filters.h"

#include <algorithm>
#include <limits>

namespace auris {

void LogitFilter::apply(std::span<float> logits, int n_vocab, const TokenRows& tokens) const {
  StepRules rules;
  rules.row_masks.resize(tokens.size());
  add_rules(tokens, rules);
  apply_step_rules(rules, logits, n_vocab);
}

SuppressBlank::SuppressBlank(std::vector<int> blank_tokens, int eot, int sample_begin)
    : suppressed_(std::move(blank_tokens)), sample_begin_(sample_begin) {
  suppressed_.push_back(eot);
}

void SuppressBlank::add_rules(const TokenRows& tokens, StepRules& rules) const {
  if (tokens.empty() || static_cast<int>(tokens[0].size()) != sample_begin_) return;
  rules.masked_tokens.insert(rules.masked_tokens.end(), suppressed_.begin(), suppressed_.end());
}

SuppressTokens::SuppressTokens(std::vector<int> tokens) : suppressed_(std::move(tokens)) {}

void SuppressTokens::add_rules(const TokenRows&, StepRules& rules) const {
  rules.masked_tokens.insert(rules.masked_tokens.end(), suppressed_.begin(), suppressed_.end());
}

// The tokens a row sampled: CTranslate2 counts neither the prompt nor the start sequence nor the
// prefix, which it runs before its first step.
std::span<const int> sampled_tokens(const std::vector<int>& row, int sample_begin) {
  return std::span<const int>(row).subspan(std::min<size_t>(static_cast<size_t>(sample_begin), row.size()));
}

RepetitionPenalty::RepetitionPenalty(float penalty, int sample_begin) : penalty_(penalty), sample_begin_(sample_begin) {}

void RepetitionPenalty::add_rules(const TokenRows& tokens, StepRules& rules) const {
  rules.repetition_penalty = penalty_;
  rules.penalized_tokens.resize(tokens.size());
  for (size_t k = 0; k < tokens.size(); ++k) {
    const std::span<const int> sampled = sampled_tokens(tokens[k], sample_begin_);
    std::vector<int>& penalized = rules.penalized_tokens[k];
    penalized.assign(sampled.begin(), sampled.end());
    std::sort(penalized.begin(), penalized.end());  // once each, however often it was sampled
    penalized.erase(std::unique(penalized.begin(), penalized.end()), penalized.end());
  }
}

NoRepeatNgram::NoRepeatNgram(int ngram_size, int sample_begin) : ngram_size_(ngram_size), sample_begin_(sample_begin) {}

void NoRepeatNgram::add_rules(const TokenRows& tokens, StepRules& rules) const {
  const size_t n = static_cast<size_t>(ngram_size_);
  for (size_t k = 0; k < tokens.size(); ++k) {
    const std::span<const int> sampled = sampled_tokens(tokens[k], sample_begin_);
    if (sampled.size() < n) continue;
    // The last n - 1 tokens, wherever they occurred before, and the token that followed them there.
    const std::span<const int> tail = sampled.last(n - 1);
    for (size_t at = 0; at + n <= sampled.size(); ++at) {
      if (std::equal(tail.begin(), tail.end(), sampled.begin() + static_cast<std::ptrdiff_t>(at))) {
        const int banned = sampled[at + n - 1];
        rules.row_masks[k].push_back({banned, banned + 1});
      }
    }
  }
}

ApplyTimestampRules::ApplyTimestampRules(Tokens special, int sample_begin,
                                         std::optional<int> max_initial_timestamp_index,
                                         std::optional<int> no_end_before_index)
    : special_(special),
      sample_begin_(sample_begin),
      max_initial_timestamp_index_(max_initial_timestamp_index),
      no_end_before_index_(no_end_before_index) {}

void ApplyTimestampRules::add_rules(const TokenRows& tokens, StepRules& rules) const {
  const int tb = special_.timestamp_begin;
  constexpr int kToTheEnd = std::numeric_limits<int>::max();  // Python's row[begin:]
  const bool first_sample = !tokens.empty() && static_cast<int>(tokens[0].size()) == sample_begin_;
  for (size_t k = 0; k < tokens.size(); ++k) {
    std::vector<TokenRange>& masks = rules.row_masks[k];
    // <|notimestamps|> is what without_timestamps is for.
    masks.push_back({special_.no_timestamps, special_.no_timestamps + 1});

    // Timestamps come in pairs, except directly before <|endoftext|>.
    const std::vector<int>& all = tokens[k];
    const std::span<const int> sampled =
        std::span<const int>(all).subspan(std::min<size_t>(sample_begin_, all.size()));
    const size_t n = sampled.size();
    const bool last_was_timestamp = n >= 1 && sampled[n - 1] >= tb;
    const bool penultimate_was_timestamp = n < 2 || sampled[n - 2] >= tb;
    if (last_was_timestamp) {
      if (penultimate_was_timestamp) {
        masks.push_back({tb, kToTheEnd});  // a pair just closed: text must follow
        if (n >= 2 && no_end_before_index_ && sampled[n - 1] - tb < *no_end_before_index_)
          masks.push_back({special_.eot, special_.eot + 1});
      } else {
        masks.push_back({0, special_.eot});  // an opened pair must close (or end)
      }
    }

    // Timestamps never decrease, and a segment must not be empty (no infinite loops).
    const auto last_timestamp = std::find_if(sampled.rbegin(), sampled.rend(), [tb](int t) { return t >= tb; });
    if (last_timestamp != sampled.rend()) {
      const int limit = (last_was_timestamp && !penultimate_was_timestamp) ? *last_timestamp : *last_timestamp + 1;
      masks.push_back({tb, limit});
    }

    if (first_sample) {
      masks.push_back({0, tb});  // the first sampled token is a timestamp
      if (max_initial_timestamp_index_) masks.push_back({tb + *max_initial_timestamp_index_ + 1, kToTheEnd});
    }
  }
  // If the timestamps together outweigh every single text token, sample a timestamp.
  rules.timestamp_begin = tb;
}

}  // namespace auris
