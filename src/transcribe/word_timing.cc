#include "transcribe/word_timing.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "auris/error.h"
#include "tokenizer/word_split.h"
#include "transcribe/dtw.h"
#include "transcribe/median_filter.h"
#include "whisper/window_engine.h"

namespace auris {
namespace {

constexpr double kTokensPerSecond = 50.0;  // encoder positions per second of audio

// In place over `n` values: softmax as torch computes it on a float32 tensor (rounded to float).
void softmax(float* x, int n) {
  if (n == 0) return;
  const float max = *std::max_element(x, x + n);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += std::exp(static_cast<double>(x[i]) - max);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(std::exp(static_cast<double>(x[i]) - max) / sum);
}

// The heads' attention over the window's real frames, normalised as openai does: softmax over
// frames, then per frame and head standardised over the tokens (population std), median filtered
// along the frames, and averaged over the heads. Returns [tokens x frames].
std::vector<float> attention_matrix(const AlignmentScores& s, int frames, int medfilt_width, float qk_scale) {
  const int heads = s.n_heads, tokens = s.n_tokens;
  std::vector<float> w(static_cast<size_t>(heads) * tokens * frames);
  for (int h = 0; h < heads; ++h) {
    for (int t = 0; t < tokens; ++t) {
      const float* src = s.cross_scores.data() + (static_cast<size_t>(h) * tokens + t) * s.n_frames;
      float* dst = w.data() + (static_cast<size_t>(h) * tokens + t) * frames;
      for (int f = 0; f < frames; ++f) dst[f] = src[f] * qk_scale;
      softmax(dst, frames);
    }
    for (int f = 0; f < frames; ++f) {
      auto at = [&](int t) -> float& { return w[(static_cast<size_t>(h) * tokens + t) * frames + f]; };
      double sum = 0.0;
      for (int t = 0; t < tokens; ++t) sum += at(t);
      const float mean = static_cast<float>(sum / tokens);
      double squares = 0.0;
      for (int t = 0; t < tokens; ++t) squares += (static_cast<double>(at(t)) - mean) * (static_cast<double>(at(t)) - mean);
      const float std = static_cast<float>(std::sqrt(squares / tokens));
      for (int t = 0; t < tokens; ++t) at(t) = (at(t) - mean) / std;
    }
  }
  median_filter(w, heads * tokens, frames, medfilt_width);
  std::vector<float> matrix(static_cast<size_t>(tokens) * frames);
  for (size_t i = 0; i < matrix.size(); ++i) {
    double sum = 0.0;
    for (int h = 0; h < heads; ++h) sum += w[static_cast<size_t>(h) * matrix.size() + i];
    matrix[i] = static_cast<float>(sum / heads);
  }
  return matrix;
}

}  // namespace

AlignmentScores alignment_forward_pass(WindowEngine& inference, const Tokenizer& tokenizer,
                                       const std::vector<int>& sot_sequence, const std::vector<int>& text_tokens,
                                       const std::vector<std::pair<int, int>>& alignment_heads) {
  if (alignment_heads.empty()) throw Error("the model has no alignment heads, so word timestamps cannot be computed");
  std::vector<int> tokens = sot_sequence;
  tokens.push_back(tokenizer.no_timestamps());
  tokens.insert(tokens.end(), text_tokens.begin(), text_tokens.end());
  tokens.push_back(tokenizer.eot());
  // Row i of openai's logits[len(sot_sequence):] predicts text token i.
  std::vector<int> positions(text_tokens.size());
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<int>(sot_sequence.size() + i);

  AlignmentScores scores;
  std::vector<float> logits;
  inference.alignment_pass(tokens, positions, alignment_heads, logits, scores.cross_scores);
  scores.n_heads = static_cast<int>(alignment_heads.size());
  scores.n_tokens = static_cast<int>(tokens.size());
  scores.n_frames = static_cast<int>(scores.cross_scores.size() / (static_cast<size_t>(scores.n_heads) * tokens.size()));
  scores.text_token_probs = text_token_probabilities(logits, inference.n_vocab(), tokenizer.eot(), text_tokens);
  return scores;
}

std::vector<double> text_token_probabilities(const std::vector<float>& logits, int n_vocab, int eot,
                                             const std::vector<int>& text_tokens) {
  if (logits.size() != text_tokens.size() * static_cast<size_t>(n_vocab) || eot > n_vocab)
    throw Error("alignment logits do not match the text tokens");
  std::vector<double> probs;
  std::vector<float> row(static_cast<size_t>(eot));
  for (size_t i = 0; i < text_tokens.size(); ++i) {
    if (text_tokens[i] < 0 || text_tokens[i] >= eot) throw Error("word timestamps need text tokens only");
    std::copy_n(logits.begin() + static_cast<long>(i * n_vocab), eot, row.begin());
    softmax(row.data(), eot);
    probs.push_back(row[static_cast<size_t>(text_tokens[i])]);
  }
  return probs;
}

std::vector<WordTiming> align_words(const AlignmentScores& s, const Tokenizer& tokenizer, std::string_view language,
                                    int sot_sequence_length, const std::vector<int>& text_tokens, int num_frames,
                                    int medfilt_width, float qk_scale) {
  if (text_tokens.empty()) return {};
  const int n_text = static_cast<int>(text_tokens.size());
  if (s.n_tokens != sot_sequence_length + n_text + 2 || s.text_token_probs.size() != text_tokens.size() ||
      s.cross_scores.size() != static_cast<size_t>(s.n_heads) * s.n_tokens * s.n_frames || s.n_heads <= 0)
    throw Error("alignment scores do not match the text tokens");

  const int frames = std::clamp(num_frames / 2, 0, s.n_frames);
  const std::vector<float> matrix = attention_matrix(s, frames, medfilt_width, qk_scale);
  // Rows from <|notimestamps|> through the last text token, negated: DTW finds the cheapest path.
  const int rows = n_text + 1;
  std::vector<double> cost(static_cast<size_t>(rows) * frames);
  for (int r = 0; r < rows; ++r)
    for (int f = 0; f < frames; ++f)
      cost[static_cast<size_t>(r) * frames + f] = -matrix[static_cast<size_t>(r + sot_sequence_length) * frames + f];
  const DtwPath path = dtw(cost, rows, frames);

  std::vector<int> with_eot = text_tokens;
  with_eot.push_back(tokenizer.eot());
  WordTokens split = split_to_word_tokens(tokenizer, language, with_eot);
  if (split.tokens.size() <= 1) return {};
  std::vector<size_t> boundaries = {0};  // first token of each word, then the end
  for (size_t w = 0; w + 1 < split.tokens.size(); ++w) boundaries.push_back(boundaries.back() + split.tokens[w].size());

  // The time at which the path first reaches each token row.
  std::vector<double> jump_times;
  for (size_t k = 0; k < path.text_indices.size(); ++k)
    if (k == 0 || path.text_indices[k] != path.text_indices[k - 1]) jump_times.push_back(path.time_indices[k] / kTokensPerSecond);
  if (boundaries.back() >= jump_times.size()) throw Error("the alignment path does not cover every word");

  std::vector<WordTiming> words;
  for (size_t w = 0; w + 1 < boundaries.size(); ++w) {
    WordTiming timing;
    timing.word = std::move(split.words[w]);
    timing.tokens = std::move(split.tokens[w]);
    timing.start = jump_times[boundaries[w]];
    timing.end = jump_times[boundaries[w + 1]];
    double sum = 0.0;
    for (size_t i = boundaries[w]; i < boundaries[w + 1]; ++i) sum += s.text_token_probs[i];
    timing.probability = sum / static_cast<double>(boundaries[w + 1] - boundaries[w]);
    words.push_back(std::move(timing));
  }
  return words;
}

}  // namespace auris
