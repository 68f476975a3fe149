#include "transcribe/word_timing.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include "auris/error.h"
#include "decoding/log_softmax.h"
#include "kernels/cpu/norm_activation.h"
#include "tokenizer/word_split.h"
#include "transcribe/dtw.h"
#include "transcribe/median_filter.h"
#include "whisper/window_engine.h"

namespace auris {
namespace {

constexpr double kTokensPerSecond = 50.0;  // encoder positions per second of audio

// The heads' attention over the window's real frames, normalised as openai does: softmax over
// frames, then per frame and head standardised over the tokens (population std), median filtered
// along the frames, and averaged over the heads. Returns [tokens x frames].
std::vector<float> attention_matrix(const AlignmentScores& s, int frames, int medfilt_width, float qk_scale) {
  const int heads = s.n_heads, tokens = s.n_tokens;
  std::vector<float> w(static_cast<size_t>(heads) * tokens * frames);
  // The engine's thread runs this between decode steps, so its other threads share the work.
#pragma omp parallel for schedule(static)
  for (int row = 0; row < heads * tokens; ++row) {
    const float* src = s.cross_scores.data() + static_cast<size_t>(row) * s.n_frames;
    float* dst = w.data() + static_cast<size_t>(row) * frames;
    for (int f = 0; f < frames; ++f) dst[f] = src[f] * qk_scale;
    if (frames > 0) softmax_inplace(dst, frames);
  }
  // Each frame's mean and std over the tokens, summed row by row in token order.
#pragma omp parallel for schedule(static)
  for (int h = 0; h < heads; ++h) {
    float* head = w.data() + static_cast<size_t>(h) * tokens * frames;
    std::vector<double> sums(static_cast<size_t>(frames), 0.0), squares(static_cast<size_t>(frames), 0.0);
    std::vector<float> means(static_cast<size_t>(frames)), stds(static_cast<size_t>(frames));
    for (int t = 0; t < tokens; ++t)
      for (int f = 0; f < frames; ++f) sums[f] += head[static_cast<size_t>(t) * frames + f];
    for (int f = 0; f < frames; ++f) means[f] = static_cast<float>(sums[f] / tokens);
    for (int t = 0; t < tokens; ++t)
      for (int f = 0; f < frames; ++f) {
        const double d = static_cast<double>(head[static_cast<size_t>(t) * frames + f]) - means[f];
        squares[f] += d * d;
      }
    for (int f = 0; f < frames; ++f) stds[f] = static_cast<float>(std::sqrt(squares[f] / tokens));
    for (int t = 0; t < tokens; ++t)
      for (int f = 0; f < frames; ++f) {
        float& v = head[static_cast<size_t>(t) * frames + f];
        v = (v - means[f]) / stds[f];
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
  for (int token : text_tokens)
    if (token < 0 || token >= eot) throw Error("word timestamps need text tokens only");
  // Softmax over the text tokens (the vocabulary before <|endoftext|>), as openai's timing.py.
  std::vector<double> probs(text_tokens.size());
  const long count = static_cast<long>(text_tokens.size());
#pragma omp parallel for schedule(static)
  for (long i = 0; i < count; ++i) {
    const std::span<const float> row(logits.data() + static_cast<size_t>(i) * n_vocab, static_cast<size_t>(eot));
    probs[static_cast<size_t>(i)] = std::exp(static_cast<double>(log_softmax_at(row, text_tokens[static_cast<size_t>(i)])));
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
