// Word-level timing from the decoder's cross-attention, as openai/whisper timing.py's
// find_alignment: the text is re-run through the decoder over its window; the alignment heads'
// attention (softmax over the window's real frames, normalised per frame over the tokens, median
// filtered, averaged over heads) is aligned with dynamic time warping, and each word starts where
// the warping path first reaches its first token.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace auris {

class WindowEngine;

struct WordTiming {
  std::string word;
  std::vector<int> tokens;
  double start = 0.0;  // seconds from the window's start
  double end = 0.0;
  double probability = 0.0;  // mean probability of the word's tokens
};

// What the alignment forward pass gives find_alignment.
struct AlignmentScores {
  // Probability of each text token, softmax over logits[:, :eot] at the position predicting it.
  std::vector<double> text_token_probs;
  // Pre-softmax cross-attention q·k/sqrt(d_head) of each alignment head: [heads x tokens x frames]
  // over the whole token sequence [*sot_sequence, no_timestamps, *text_tokens, eot].
  std::vector<float> cross_scores;
  int n_heads = 0;
  int n_tokens = 0;
  int n_frames = 0;  // encoder positions (n_audio_ctx)
};

// Runs [*sot_sequence, <|notimestamps|>, *text_tokens, <|endoftext|>] over the window the
// inference holds and collects what find_alignment needs. Resets the inference's decoding state.
AlignmentScores alignment_forward_pass(WindowEngine& inference, const Tokenizer& tokenizer,
                                       const std::vector<int>& sot_sequence, const std::vector<int>& text_tokens,
                                       const std::vector<std::pair<int, int>>& alignment_heads);

// softmax(logits[row, :eot])[token] for row i and text_tokens[i]; logits: [rows x n_vocab].
std::vector<double> text_token_probabilities(const std::vector<float>& logits, int n_vocab, int eot,
                                             const std::vector<int>& text_tokens);

// find_alignment after the forward pass. num_frames: mel frames of real audio in the window (the
// attention beyond num_frames / 2 encoder positions is ignored). language as split_to_word_tokens.
// Returns no words for no text. Throws auris::Error if the scores do not match the tokens.
std::vector<WordTiming> align_words(const AlignmentScores& scores, const Tokenizer& tokenizer, std::string_view language,
                                    int sot_sequence_length, const std::vector<int>& text_tokens, int num_frames,
                                    int medfilt_width = 7, float qk_scale = 1.0f);

}  // namespace auris
