#include "decoding/logit_filters.h"

#include <algorithm>
#include <limits>

#include "decoding/log_softmax.h"
#include "kernels/cpu/norm_activation.h"

namespace auris {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::span<float> row_of(std::span<float> logits, int n_vocab, size_t row) {
  return logits.subspan(row * n_vocab, n_vocab);
}

// Python's row[begin:end] = -inf, with both ends clamped to the row.
void mask_range(std::span<float> row, long begin, long end) {
  const long n = static_cast<long>(row.size());
  begin = std::clamp(begin, 0L, n);
  end = std::clamp(end, 0L, n);
  for (long i = begin; i < end; ++i) row[i] = kNegInf;
}

}  // namespace

SuppressBlank::SuppressBlank(std::vector<int> blank_tokens, int eot, int sample_begin)
    : suppressed_(std::move(blank_tokens)), sample_begin_(sample_begin) {
  suppressed_.push_back(eot);
}

void SuppressBlank::apply(std::span<float> logits, int n_vocab, const TokenRows& tokens) const {
  if (tokens.empty() || static_cast<int>(tokens[0].size()) != sample_begin_) return;
  for (size_t k = 0; k < tokens.size(); ++k) {
    auto row = row_of(logits, n_vocab, k);
    for (int t : suppressed_) row[t] = kNegInf;
  }
}

SuppressTokens::SuppressTokens(std::vector<int> tokens) : suppressed_(std::move(tokens)) {}

void SuppressTokens::apply(std::span<float> logits, int n_vocab, const TokenRows& tokens) const {
  for (size_t k = 0; k < tokens.size(); ++k) {
    auto row = row_of(logits, n_vocab, k);
    for (int t : suppressed_) row[t] = kNegInf;
  }
}

ApplyTimestampRules::ApplyTimestampRules(Tokens special, int sample_begin,
                                         std::optional<int> max_initial_timestamp_index,
                                         std::optional<int> no_end_before_index)
    : special_(special),
      sample_begin_(sample_begin),
      max_initial_timestamp_index_(max_initial_timestamp_index),
      no_end_before_index_(no_end_before_index) {}

void ApplyTimestampRules::apply(std::span<float> logits, int n_vocab, const TokenRows& tokens) const {
  const int tb = special_.timestamp_begin;
  for (size_t k = 0; k < tokens.size(); ++k) {
    auto row = row_of(logits, n_vocab, k);
    // <|notimestamps|> is what without_timestamps is for.
    row[special_.no_timestamps] = kNegInf;

    // Timestamps come in pairs, except directly before <|endoftext|>.
    const std::vector<int>& all = tokens[k];
    const std::span<const int> sampled =
        std::span<const int>(all).subspan(std::min<size_t>(sample_begin_, all.size()));
    const size_t n = sampled.size();
    const bool last_was_timestamp = n >= 1 && sampled[n - 1] >= tb;
    const bool penultimate_was_timestamp = n < 2 || sampled[n - 2] >= tb;
    if (last_was_timestamp) {
      if (penultimate_was_timestamp) {
        mask_range(row, tb, n_vocab);  // a pair just closed: text must follow
        if (n >= 2 && no_end_before_index_ && sampled[n - 1] - tb < *no_end_before_index_) row[special_.eot] = kNegInf;
      } else {
        mask_range(row, 0, special_.eot);  // an opened pair must close (or end)
      }
    }

    // Timestamps never decrease, and a segment must not be empty (no infinite loops).
    const auto last_timestamp = std::find_if(sampled.rbegin(), sampled.rend(), [tb](int t) { return t >= tb; });
    if (last_timestamp != sampled.rend()) {
      const long limit = (last_was_timestamp && !penultimate_was_timestamp) ? *last_timestamp : *last_timestamp + 1L;
      mask_range(row, tb, limit);
    }
  }

  if (!tokens.empty() && static_cast<int>(tokens[0].size()) == sample_begin_) {
    for (size_t k = 0; k < tokens.size(); ++k) {
      auto row = row_of(logits, n_vocab, k);
      mask_range(row, 0, tb);  // the first sampled token is a timestamp
      if (max_initial_timestamp_index_) mask_range(row, tb + static_cast<long>(*max_initial_timestamp_index_) + 1, n_vocab);
    }
  }

  // If the timestamps together outweigh every single text token, sample a timestamp. The common
  // log-normaliser of log_softmax cancels out of this comparison.
  for (size_t k = 0; k < tokens.size(); ++k) {
    auto row = row_of(logits, n_vocab, k);
    const double timestamp_logsum = log_sum_exp(row.subspan(tb));
    const double max_text = max_value(row.data(), tb);  // -inf when there is no text token
    if (timestamp_logsum > max_text) mask_range(row, 0, tb);
  }
}

}  // namespace auris
