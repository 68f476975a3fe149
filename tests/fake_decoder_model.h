// Test support for src/decoding: the pseudo-random logits and the fake Whisper decoder of
// tools/reference/fake_decoder_model.py, re-implemented bit for bit (integer hashes, exact float32
// arithmetic), so the reference fixtures can be replayed without a model.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "decoding/inference.h"

namespace auris::test {

inline std::uint64_t mix(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// k / 2**24 with k the top 24 bits of mix(seed ^ (v + 1) * salt).
inline std::vector<float> unit_floats(std::uint64_t seed, int n) {
  std::vector<float> out(n);
  for (int v = 0; v < n; ++v) {
    const std::uint64_t bits = mix(seed ^ (static_cast<std::uint64_t>(v + 1) * 0xD1B54A32D192ED03ULL)) >> 40;
    out[v] = static_cast<float>(bits) * (1.0f / 16777216.0f);
  }
  return out;
}

inline std::vector<float> random_logits(std::uint64_t seed, int n_vocab, float scale,
                                        const std::vector<std::pair<int, float>>& overrides) {
  std::vector<float> logits = unit_floats(seed, n_vocab);
  for (float& x : logits) x = (x * 2.0f - 1.0f) * scale;
  for (const auto& [token, value] : overrides) logits[token] = value;
  return logits;
}

struct FakeVocabulary {
  int n_vocab = 0;
  int eot = 0;
  int sot = 0;
  int no_speech = 0;
  int timestamp_begin = 0;
  std::vector<int> words;
};

// The fake decoder's logits for a history summarised by (hash, pos); see the Python docstring.
inline std::vector<float> fake_logits(const FakeVocabulary& v, std::uint64_t h, int pos) {
  std::vector<float> logits = unit_floats(h, v.n_vocab);
  for (float& x : logits) x *= 2.0f;
  const std::uint64_t r = mix(h ^ 0xA5A5A5A5A5A5A5A5ULL);
  const std::uint64_t n = v.words.size();
  const std::pair<int, float> boosts[] = {{0, 9.0f}, {16, 8.0f}, {32, 7.5f}};
  for (const auto& [shift, boost] : boosts) logits[v.words[(r >> shift) % n]] += boost;
  if ((r >> 40) % 4 == 0) {
    const int t = v.timestamp_begin + static_cast<int>(std::min<std::uint64_t>(1500, 10 * pos + (r >> 48) % 10));
    logits[t] += 10.0f;
  }
  const float eot_boost = 0.25f * static_cast<float>(std::max(0, pos - 20)) + ((r >> 56) % 16 == 0 ? 6.0f : 0.0f);
  logits[v.eot] += eot_boost;
  logits[v.no_speech] += static_cast<float>(4 + (r >> 20) % 8);
  return logits;
}

// An Inference over the fake decoder that keeps per-row state like a real KV cache: after the
// prefill it only reads each row's newest token, and rearrange_kv_cache moves the states, so a
// decoder that forgets to reorder its beams gets wrong logits.
class FakeInference : public Inference {
 public:
  explicit FakeInference(FakeVocabulary vocab) : vocab_(std::move(vocab)) {}

  void logits(const std::vector<std::vector<int>>& tokens, std::vector<float>& logits_out,
              const std::vector<int>& extra_positions, std::vector<float>* extra_logits_out) override {
    ++calls;
    logits_out.clear();
    if (extra_logits_out) extra_logits_out->clear();
    if (states_.empty()) {
      std::vector<std::vector<float>> extra(extra_positions.size());  // once, in the order asked for
      for (const auto& row : tokens) {
        State s;
        for (int p = 0; p < static_cast<int>(row.size()); ++p) {
          advance(s, row[p]);
          for (size_t e = 0; e < extra_positions.size(); ++e)
            if (p == extra_positions[e] && extra[e].empty()) append(extra[e], s);
        }
        states_.push_back(s);
        append(logits_out, s);
      }
      if (extra_logits_out)
        for (const auto& e : extra) extra_logits_out->insert(extra_logits_out->end(), e.begin(), e.end());
      prefill_length = static_cast<int>(tokens[0].size());
      return;
    }
    if (tokens.size() != states_.size()) throw std::runtime_error("row count changed without reset");
    for (size_t k = 0; k < tokens.size(); ++k) {
      if (static_cast<int>(tokens[k].size()) != states_[k].length + 1)
        throw std::runtime_error("a step must add exactly one token per row");
      advance(states_[k], tokens[k].back());
      append(logits_out, states_[k]);
    }
  }

  void rearrange_kv_cache(const std::vector<int>& source_rows) override {
    std::vector<State> next;
    for (int i : source_rows) next.push_back(states_.at(i));
    states_ = std::move(next);
    ++rearranges;
  }

  void reset() override { states_.clear(); }
  int n_vocab() const override { return vocab_.n_vocab; }

  int calls = 0;
  int rearranges = 0;
  int prefill_length = 0;

 private:
  struct State {
    std::uint64_t hash = 0x1234567;
    int length = 0;
    int start = 0;  // position of the last <|startoftranscript|>
  };

  void advance(State& s, int token) const {
    s.hash = mix(s.hash + static_cast<std::uint64_t>(token + 1) * 0x9E3779B97F4A7C15ULL);
    if (token == vocab_.sot) s.start = s.length;
    ++s.length;
  }

  void append(std::vector<float>& out, const State& s) const {
    const std::vector<float> row = fake_logits(vocab_, s.hash, s.length - s.start);
    out.insert(out.end(), row.begin(), row.end());
  }

  FakeVocabulary vocab_;
  std::vector<State> states_;
};

}  // namespace auris::test
