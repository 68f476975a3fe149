// Options and result of decoding one 30-s window, field for field as openai/whisper's
// DecodingOptions and DecodingResult (decoding.py), with the same defaults.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace auris {

// Text (encoded as " " + text.strip(), like openai) or ready token ids.
using TextOrTokens = std::variant<std::string, std::vector<int>>;

struct DecodingOptions {
  // "transcribe" (X->X) or "translate" (X->English).
  std::string task = "transcribe";
  // Language code or name of the audio; detected from the audio when unset (multilingual models).
  std::optional<std::string> language;

  // Sampling: temperature 0 is greedy (or beam search); > 0 samples from softmax(logits / T).
  double temperature = 0.0;
  std::optional<int> sample_len;  // maximum number of tokens to sample; n_text_ctx / 2 when unset
  std::optional<int> best_of;     // independent sampled sequences, when temperature > 0 (1 to 64)
  std::optional<int> beam_size;   // beams in beam search, when temperature == 0 (1 to 64)
  std::optional<double> patience; // beam search patience (arxiv:2204.05424)

  // Google NMT "alpha" for ranking candidates; unset means plain length normalisation.
  std::optional<double> length_penalty;
  // CTranslate2's length_penalty, as faster-whisper passes it: candidates ranked by their sum of
  // log-probabilities over length ** length_exponent (1 is openai's plain normalisation, 0 none).
  // Not with length_penalty; the beam search itself stays openai's.
  std::optional<double> length_exponent;

  // Previous context (fed after <|startofprev|>) and a forced prefix of the current text.
  std::optional<TextOrTokens> prompt;
  std::optional<TextOrTokens> prefix;

  // Token ids to suppress, as a list or as comma-separated text; -1 stands for the tokenizer's
  // non-speech symbols. Unset or empty suppresses only the special tokens.
  std::optional<TextOrTokens> suppress_tokens = TextOrTokens(std::string("-1"));
  bool suppress_blank = true;  // no blank (" " or <|endoftext|>) as the first sampled token

  // Timestamps: <|notimestamps|> samples text tokens only.
  bool without_timestamps = false;
  std::optional<double> max_initial_timestamp = 1.0;

  // CTranslate2's penalties, as faster-whisper passes them (off by default, as there): the logits of
  // the tokens a sequence already holds past its start sequence (the prefix and the sampled ones)
  // are divided by repetition_penalty (multiplied where negative; 0.001 to 1000, 1 is off), and a
  // token that would repeat an n-gram of no_repeat_ngram_size tokens is forbidden (0 is off).
  double repetition_penalty = 1.0;
  int no_repeat_ngram_size = 0;

  // auris addition: seed of the sampler used when temperature > 0 (openai uses torch's global RNG).
  std::uint64_t seed = 0;
  // auris addition: tokens the decode takes as its first sampled ones, timestamps included, as if it
  // had chosen them. Unlike prefix they are part of the result and of its log-probability, under the
  // same logit filters; they are prefilled in one pass instead of decoded one by one. A live stream
  // forces the committed words its buffer holds, so that a re-decode samples only what follows them.
  // Where the filters forbid one of them (or they leave no room), the window is decoded without them.
  std::vector<int> forced_tokens;
  // auris addition: a segment that closes before this time (seconds into the window) may not be
  // the last: after its closing timestamp pair, text must follow, not <|endoftext|>. Whisper tends
  // to stop at speech cut off by the end of the audio, which openai's transcribe then decodes in
  // one more window; a live stream sets this to decode it in the same one.
  std::optional<double> no_end_before;
};

struct DecodingResult {
  std::string language;
  // Probability per language code, present when the language was detected (openai keeps them only
  // for its "lang_id" task; auris keeps what it computed).
  std::optional<std::map<std::string, float>> language_probs;
  std::vector<int> tokens;  // sampled tokens, without the start sequence and <|endoftext|>
  std::string text;
  double avg_logprob = NAN;
  double no_speech_prob = NAN;
  double temperature = NAN;
  double compression_ratio = NAN;
};

}  // namespace auris
