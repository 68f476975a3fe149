#include "decoding/beam_search_decoder.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "auris/error.h"
#include "util/number_text.h"

namespace auris {

namespace {

// Finished sequences a beam search may wait for; a patience past this many waits for the token limit.
constexpr int kMostCandidates = 1 << 20;

struct Candidate {
  std::vector<int> sequence;
  float score;
  int source;
};

// Python `d[key] = value`: updates in place (keeping the position) or appends. The keys are token
// sequences that share the window's prompt and most of their history, so they are compared from the
// end, where they differ.
template <typename Entry>
Entry* find_entry(std::vector<Entry>& entries, const std::vector<int>& key, auto key_of) {
  for (auto& e : entries) {
    const std::vector<int>& k = key_of(e);
    if (k.size() == key.size() && std::equal(k.rbegin(), k.rend(), key.rbegin())) return &e;
  }
  return nullptr;
}

}  // namespace

BeamSearchDecoder::BeamSearchDecoder(int beam_size, int eot, Inference& inference, std::optional<double> patience)
    : beam_size_(beam_size), eot_(eot), inference_(inference) {
  const double p = (patience && *patience != 0) ? *patience : 1.0;
  // Python's round(): halves go to the even neighbour, as nearbyint does by default.
  const double candidates = std::nearbyint(beam_size * p);
  if (beam_size < 1 || !(candidates >= 1)) {
    throw Error("invalid beam search settings: beam_size " + std::to_string(beam_size) + " with patience " +
                number_text(p) + " keeps no finished candidate; use beam_size >= 1 and a larger patience (1.0 is the default)");
  }
  // A patience past any count of finished sequences waits for the token limit.
  max_candidates_ = candidates < kMostCandidates ? static_cast<int>(candidates) : kMostCandidates;
}

void BeamSearchDecoder::reset() { finished_.clear(); }

bool BeamSearchDecoder::update(TokenRows& tokens, std::span<const float> logits, int n_vocab,
                               std::vector<float>& sum_logprobs) {
  StepProposals proposals;
  propose_on_host(logits, static_cast<int>(tokens.size()), n_vocab, Selection::kTopLogprobs, beam_size_ + 1, proposals);
  return update(tokens, proposals, sum_logprobs);
}

bool BeamSearchDecoder::update(TokenRows& tokens, const StepProposals& proposals, std::vector<float>& sum_logprobs) {
  if (tokens.size() % beam_size_ != 0) {
    throw Error("beam search got " + std::to_string(tokens.size()) + " rows, not a multiple of beam_size " +
                std::to_string(beam_size_));
  }
  // beam_size + 1 a row, or every token of a smaller vocabulary.
  if (proposals.k < 1 || proposals.k > beam_size_ + 1 || proposals.tokens.size() != tokens.size() * proposals.k ||
      proposals.logprobs.size() != proposals.tokens.size())
    throw Error("beam search takes beam_size + 1 proposals a row");
  const size_t n_audio = tokens.size() / beam_size_;
  if (finished_.empty()) finished_.resize(n_audio);

  TokenRows next_tokens;
  std::vector<int> source_indices;
  std::vector<SequenceScores> newly_finished(n_audio);
  for (size_t i = 0; i < n_audio; ++i) {
    // STEP 1: every beam proposes its beam_size + 1 best continuations. Identical beams (all of
    // them at the first step) propose identical sequences; like the reference's dict, the later
    // proposal overwrites score and source but keeps the first one's position.
    std::vector<Candidate> candidates;
    for (int j = 0; j < beam_size_; ++j) {
      const int idx = static_cast<int>(i) * beam_size_ + j;
      for (int p = 0; p < proposals.k; ++p) {
        const size_t at = static_cast<size_t>(idx) * proposals.k + p;
        const int token = proposals.tokens[at];
        const float logprob = proposals.logprobs[at];
        std::vector<int> sequence = tokens[idx];
        sequence.push_back(token);
        const float score = sum_logprobs[idx] + logprob;
        auto key_of = [](const Candidate& c) -> const std::vector<int>& { return c.sequence; };
        if (Candidate* existing = find_entry(candidates, sequence, key_of)) {
          existing->score = score;
          existing->source = idx;
        } else {
          candidates.push_back({std::move(sequence), score, idx});
        }
      }
    }

    // STEP 2: best first (stable, like Python's sorted(reverse=True)); finished ones are set aside,
    // the first beam_size unfinished ones continue.
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
    int saved = 0;
    for (Candidate& c : candidates) {
      if (c.sequence.back() == eot_) {
        newly_finished[i].emplace_back(std::move(c.sequence), c.score);
      } else {
        sum_logprobs[next_tokens.size()] = c.score;
        next_tokens.push_back(std::move(c.sequence));
        source_indices.push_back(c.source);
        if (++saved == beam_size_) break;
      }
    }
  }
  if (next_tokens.size() != tokens.size()) {
    throw Error("beam search found only " + std::to_string(next_tokens.size()) + " live candidates for " +
                std::to_string(tokens.size()) + " beams; the vocabulary is too small for beam_size " +
                std::to_string(beam_size_));
  }
  tokens = std::move(next_tokens);
  inference_.rearrange_kv_cache(source_indices);

  // Keep the best newly finished sequences while there is room for them.
  for (size_t i = 0; i < n_audio; ++i) {
    auto& newly = newly_finished[i];
    std::stable_sort(newly.begin(), newly.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    SequenceScores& previously = finished_[i];
    for (auto& [sequence, score] : newly) {
      if (static_cast<int>(previously.size()) >= max_candidates_) break;
      auto key_of = [](const std::pair<std::vector<int>, double>& e) -> const std::vector<int>& { return e.first; };
      if (auto* existing = find_entry(previously, sequence, key_of)) {
        existing->second = score;
      } else {
        previously.emplace_back(std::move(sequence), score);
      }
    }
  }
  return std::all_of(finished_.begin(), finished_.end(),
                     [this](const SequenceScores& s) { return static_cast<int>(s.size()) >= max_candidates_; });
}

DecodingCandidates BeamSearchDecoder::finalize(const TokenRows& tokens, const std::vector<float>& sum_logprobs,
                                               int n_group) {
  const size_t n_audio = tokens.size() / n_group;
  if (finished_.empty()) finished_.resize(n_audio);
  DecodingCandidates out;
  for (size_t i = 0; i < n_audio; ++i) {
    SequenceScores& sequences = finished_[i];
    if (static_cast<int>(sequences.size()) < beam_size_) {
      // Not enough finished: add the unfinished beams, best first. The reference iterates
      // np.argsort(...)[::-1], so equal scores come highest index first.
      std::vector<int> order(n_group);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](int a, int b) { return sum_logprobs[i * n_group + a] < sum_logprobs[i * n_group + b]; });
      for (auto j = order.rbegin(); j != order.rend(); ++j) {
        std::vector<int> sequence = tokens[i * n_group + *j];
        sequence.push_back(eot_);
        const double score = sum_logprobs[i * n_group + *j];
        auto key_of = [](const std::pair<std::vector<int>, double>& e) -> const std::vector<int>& { return e.first; };
        if (auto* existing = find_entry(sequences, sequence, key_of)) {
          existing->second = score;
        } else {
          sequences.emplace_back(std::move(sequence), score);
        }
        if (static_cast<int>(sequences.size()) >= beam_size_) break;
      }
    }
    auto& group_tokens = out.tokens.emplace_back();
    auto& group_sums = out.sum_logprobs.emplace_back();
    for (const auto& [sequence, score] : sequences) {
      group_tokens.push_back(sequence);
      group_sums.push_back(score);
    }
  }
  return out;
}

}  // namespace auris
