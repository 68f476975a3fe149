#include "decoding/decoding_task.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "auris/error.h"
#include "decoding/beam_search_decoder.h"
#include "decoding/compression_ratio.h"
#include "decoding/detect_language.h"
#include "decoding/greedy_decoder.h"
#include "decoding/log_softmax.h"
#include "decoding/sequence_ranker.h"
#include "decoding/strip_whitespace.h"
#include "util/number_text.h"
#include "util/shown_text.h"

namespace auris {

namespace {

constexpr double kChunkSeconds = 30.0;  // openai audio.CHUNK_LENGTH

// Python's list[-count:] (count 0 keeps everything, a negative count drops the first -count).
std::vector<int> python_tail(const std::vector<int>& v, long count) {
  const long n = static_cast<long>(v.size());
  const long start = count > 0 ? std::max(0L, n - count) : std::min(-count, n);
  return std::vector<int>(v.begin() + start, v.end());
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "-1,220, 50257" -> ids; Python int() accepts surrounding whitespace and a sign.
std::vector<int> parse_token_list(const std::string& text) {
  std::vector<int> ids;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    const std::string item = strip_whitespace(std::string_view(text).substr(begin, end - begin));
    const char* first = item.data();
    if (!item.empty() && item[0] == '+') ++first;
    int value = 0;
    const auto [ptr, ec] = std::from_chars(first, item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size()) {
      throw Error("suppress_tokens \"" + text + "\" is not a comma-separated list of token ids (\"" + item +
                  "\" is not an integer); write it like \"-1\" or \"-1,220,50257\"");
    }
    ids.push_back(value);
    begin = end + 1;
  }
  return ids;
}

}  // namespace

bool present(const std::optional<TextOrTokens>& value) {
  if (!value) return false;
  if (const auto* text = std::get_if<std::string>(&*value)) return !text->empty();
  return !std::get<std::vector<int>>(*value).empty();
}

DecodingTask::DecodingTask(const Tokenizer& tokenizer, const ModelDims& dims, DecodingOptions options)
    : tokenizer_(tokenizer), dims_(dims), options_(std::move(options)) {
  verify_options();

  n_group_ = options_.beam_size ? *options_.beam_size : (options_.best_of ? *options_.best_of : 1);
  n_ctx_ = dims_.n_text_ctx;
  // openai: `sample_len or n_text_ctx // 2`, so 0 also means the default.
  sample_len_ = (options_.sample_len && *options_.sample_len != 0) ? *options_.sample_len : n_ctx_ / 2;

  // The start sequence with "en" standing in for a language still to be detected.
  const std::optional<std::string> code =
      tokenizer_.multilingual()
          ? std::optional<std::string>(language_token_ ? tokenizer_.language_code(*language_token_) : "en")
          : std::nullopt;
  sot_sequence_ = tokenizer_.sot_sequence(code, task_);
  if (options_.without_timestamps) sot_sequence_.push_back(tokenizer_.no_timestamps());

  initial_tokens_ = build_initial_tokens();
  if (static_cast<int>(initial_tokens_.size()) >= n_ctx_) {
    throw Error("the prompt, start tokens and prefix take " + std::to_string(initial_tokens_.size()) +
                " tokens, leaving no room in the model's text context of " + std::to_string(n_ctx_) +
                " tokens; shorten the prefix or the prompt");
  }
  sot_index_ = static_cast<int>(std::find(initial_tokens_.begin(), initial_tokens_.end(), tokenizer_.sot()) -
                                initial_tokens_.begin());

  // CTranslate2 applies its penalties before its other filters, over the prefix and sampled tokens.
  const int prefix_begin = sot_index_ + static_cast<int>(sot_sequence_.size());
  if (options_.repetition_penalty != 1.0)
    logit_filters_.push_back(std::make_unique<RepetitionPenalty>(static_cast<float>(options_.repetition_penalty), prefix_begin));
  if (options_.no_repeat_ngram_size > 0)
    logit_filters_.push_back(std::make_unique<NoRepeatNgram>(options_.no_repeat_ngram_size, prefix_begin));
  if (options_.suppress_blank) {
    logit_filters_.push_back(
        std::make_unique<SuppressBlank>(tokenizer_.encode(" "), tokenizer_.eot(), sample_begin()));
  }
  if (present(options_.suppress_tokens)) {
    suppress_tokens_ = build_suppress_tokens();
    logit_filters_.push_back(std::make_unique<SuppressTokens>(suppress_tokens_));
  }
  if (!options_.without_timestamps) {
    const double precision = kChunkSeconds / dims_.n_audio_ctx;  // usually 0.02 s
    if (options_.max_initial_timestamp && *options_.max_initial_timestamp != 0) {
      // Python's round() takes halves to the even neighbour, as nearbyint does.
      max_initial_timestamp_index_ = static_cast<int>(std::nearbyint(*options_.max_initial_timestamp / precision));
    }
    std::optional<int> no_end_before_index;
    if (options_.no_end_before)  // clamped to the window, so that the index fits
      no_end_before_index = static_cast<int>(std::floor(std::clamp(*options_.no_end_before, -1.0, kChunkSeconds) / precision));
    logit_filters_.push_back(std::make_unique<ApplyTimestampRules>(
        ApplyTimestampRules::Tokens{tokenizer_.eot(), tokenizer_.no_timestamps(), tokenizer_.timestamp_begin()},
        sample_begin(), max_initial_timestamp_index_, no_end_before_index));
  }
}

void DecodingTask::verify_options() {
  const DecodingOptions& o = options_;
  if (dims_.n_vocab != 0 && dims_.n_vocab != tokenizer_.n_vocab()) {
    throw Error("the tokenizer has " + std::to_string(tokenizer_.n_vocab()) + " tokens but the model " +
                std::to_string(dims_.n_vocab) + "; load the tokenizer that belongs to this model");
  }
  if (o.task == "transcribe") {
    task_ = Task::kTranscribe;
  } else if (o.task == "translate") {
    task_ = Task::kTranslate;
    if (!tokenizer_.multilingual()) {
      throw Error("this model is English-only and cannot translate; use a multilingual model or task \"transcribe\"");
    }
  } else {
    throw Error("unknown task \"" + shown(o.task) + "\"; use \"transcribe\" or \"translate\"");
  }
  if (o.language) {
    language_token_ = tokenizer_.language_token(lowercase(*o.language));
    if (!language_token_) {
      throw Error("unsupported language \"" + shown(*o.language) + "\"; use a code like \"en\" or a name like \"english\"" +
                  " that this model knows");
    }
    if (!tokenizer_.multilingual() && language_token_ != tokenizer_.language_token("en")) {
      throw Error("this model is English-only and cannot transcribe \"" + shown(*o.language) +
                  "\"; use a multilingual model or language \"en\"");
    }
  }
  if (std::isnan(o.temperature) || o.temperature < 0) {
    throw Error("temperature " + std::to_string(o.temperature) + " is invalid; use 0 (greedy) or a positive value");
  }
  if (o.beam_size && o.best_of) throw Error("beam_size and best_of can't be given together; choose one");
  // Each beam or candidate holds a self-attention cache; a billion of them only runs out of memory.
  constexpr int kMostCandidates = 64;  // as the CLI's --beam-size and --best-of
  if (o.beam_size && (*o.beam_size < 1 || *o.beam_size > kMostCandidates))
    throw Error("beam_size must be 1 to " + std::to_string(kMostCandidates) + ", got " + std::to_string(*o.beam_size));
  if (o.best_of && (*o.best_of < 1 || *o.best_of > kMostCandidates))
    throw Error("best_of must be 1 to " + std::to_string(kMostCandidates) + ", got " + std::to_string(*o.best_of));
  if (o.temperature == 0 && o.best_of) {
    throw Error("best_of with greedy sampling (temperature 0) is not compatible; use beam_size, or a temperature > 0");
  }
  if (o.temperature > 0 && o.beam_size) {
    throw Error("beam_size with temperature > 0 is not supported: beam search is for temperature 0; use best_of when "
                "sampling");
  }
  if (o.patience && !o.beam_size) throw Error("patience requires beam_size to be given");
  if (o.beam_size) {
    const double p = (o.patience && *o.patience != 0) ? *o.patience : 1.0;
    if (!(std::nearbyint(*o.beam_size * p) >= 1)) {
      throw Error("patience " + number_text(p) + " with beam_size " + std::to_string(*o.beam_size) +
                  " waits for no finished sequence; use a positive patience (1.0 is the default)");
    }
  }
  if (o.length_penalty && !(*o.length_penalty >= 0 && *o.length_penalty <= 1)) {
    throw Error("length_penalty (alpha) should be a value between 0 and 1, got " + number_text(*o.length_penalty));
  }
  if (o.length_exponent && o.length_penalty)
    throw Error("length_penalty (openai's) and length_exponent (CTranslate2's length_penalty) both rank by length: give one");
  if (o.length_exponent && !(*o.length_exponent >= -10 && *o.length_exponent <= 10))
    throw Error("length_exponent must be from -10 to 10 (1 divides by the length, 0 not at all), got " +
                number_text(*o.length_exponent));
  // Applied in float: 1e-300 would be a division by zero, 1e300 an infinity.
  if (!(o.repetition_penalty >= 1e-3 && o.repetition_penalty <= 1e3))
    throw Error("repetition_penalty must be from 0.001 to 1000 (1 is none; above 1 discourages repeated tokens), got " +
                number_text(o.repetition_penalty));
  if (o.no_repeat_ngram_size < 0)
    throw Error("no_repeat_ngram_size must be 0 (off) or a number of tokens, got " + std::to_string(o.no_repeat_ngram_size));
  if (o.sample_len && *o.sample_len < 0) {
    throw Error("sample_len must not be negative, got " + std::to_string(*o.sample_len));
  }
  for (int t : o.forced_tokens) {
    if (t < 0 || t >= tokenizer_.n_vocab()) {
      throw Error("forced token " + std::to_string(t) + " is outside the vocabulary (0.." +
                  std::to_string(tokenizer_.n_vocab() - 1) + ")");
    }
    if (t == tokenizer_.eot()) throw Error("forced tokens cannot hold <|endoftext|>: the decode would end there");
  }
  if (o.max_initial_timestamp && !(*o.max_initial_timestamp >= 0)) {
    throw Error("max_initial_timestamp must be a non-negative number of seconds, got " +
                std::to_string(*o.max_initial_timestamp));
  }
  if (o.no_end_before && !std::isfinite(*o.no_end_before))
    throw Error("no_end_before must be a number of seconds into the window, got " + std::to_string(*o.no_end_before));
}

std::vector<int> DecodingTask::tokens_of(const TextOrTokens& text_or_tokens, const char* what) const {
  if (const auto* text = std::get_if<std::string>(&text_or_tokens)) {
    return tokenizer_.encode(spaced_for_prompt(*text));
  }
  const auto& tokens = std::get<std::vector<int>>(text_or_tokens);
  for (int t : tokens) {
    if (t < 0 || t >= tokenizer_.n_vocab()) {
      throw Error(std::string(what) + " token " + std::to_string(t) + " is outside the vocabulary (0.." +
                  std::to_string(tokenizer_.n_vocab() - 1) + ")");
    }
  }
  return tokens;
}

std::vector<int> DecodingTask::build_initial_tokens() const {
  std::vector<int> tokens = sot_sequence_;
  if (present(options_.prefix)) {
    const long max_prefix_len = n_ctx_ / 2 - sample_len_;
    const std::vector<int> prefix = python_tail(tokens_of(*options_.prefix, "prefix"), max_prefix_len);
    tokens.insert(tokens.end(), prefix.begin(), prefix.end());
  }
  if (present(options_.prompt)) {
    std::vector<int> with_prompt = {tokenizer_.sot_prev()};
    const std::vector<int> prompt = python_tail(tokens_of(*options_.prompt, "prompt"), n_ctx_ / 2 - 1);
    with_prompt.insert(with_prompt.end(), prompt.begin(), prompt.end());
    with_prompt.insert(with_prompt.end(), tokens.begin(), tokens.end());
    tokens = std::move(with_prompt);
  }
  return tokens;
}

std::vector<int> DecodingTask::build_suppress_tokens() const {
  std::vector<int> ids;
  if (const auto* text = std::get_if<std::string>(&*options_.suppress_tokens)) {
    ids = parse_token_list(*text);
  } else {
    ids = std::get<std::vector<int>>(*options_.suppress_tokens);
  }
  std::vector<int> tokens;
  const bool non_speech = std::find(ids.begin(), ids.end(), -1) != ids.end();
  for (int t : ids) {
    if (non_speech && t < 0) continue;  // openai keeps only t >= 0 besides the -1 set
    if (t < 0 || t >= tokenizer_.n_vocab()) {
      throw Error("suppress_tokens has " + std::to_string(t) + ", outside the vocabulary (0.." +
                  std::to_string(tokenizer_.n_vocab() - 1) + "); -1 is the only negative value allowed");
    }
    tokens.push_back(t);
  }
  if (non_speech) {
    const std::vector<int> symbols = tokenizer_.non_speech_tokens();
    tokens.insert(tokens.end(), symbols.begin(), symbols.end());
  }
  // The special tokens are never sampled; no-speech is measured separately.
  for (int t : {tokenizer_.transcribe(), tokenizer_.translate(), tokenizer_.sot(), tokenizer_.sot_prev(),
                tokenizer_.sot_lm(), tokenizer_.no_speech()}) {
    tokens.push_back(t);
  }
  std::sort(tokens.begin(), tokens.end());
  tokens.erase(std::unique(tokens.begin(), tokens.end()), tokens.end());
  return tokens;
}

DecodingResult DecodingTask::run(Inference& inference) {
  const int n_vocab = inference.n_vocab();
  if (n_vocab != tokenizer_.n_vocab()) {
    throw Error("the model predicts " + std::to_string(n_vocab) + " tokens but the tokenizer has " +
                std::to_string(tokenizer_.n_vocab()) + "; load the tokenizer that belongs to this model");
  }
  DecodingResult result;
  result.temperature = options_.temperature;
  std::vector<int> start = initial_tokens_;

  // The language: given, detected (overwriting the placeholder after <|startoftranscript|>), or
  // English for English-only models.
  if (options_.language) {
    result.language = *options_.language;
  } else if (tokenizer_.multilingual()) {
    LanguageDetection detected = detect_language(inference, tokenizer_);
    start[sot_index_ + 1] = detected.token;
    result.language = detected.code;
    result.language_probs = std::move(detected.probabilities);
  } else {
    result.language = "en";
  }

  std::unique_ptr<TokenDecoder> decoder;
  if (options_.beam_size) {
    decoder = std::make_unique<BeamSearchDecoder>(*options_.beam_size, tokenizer_.eot(), inference, options_.patience);
  } else {
    decoder = std::make_unique<GreedyDecoder>(options_.temperature, tokenizer_.eot(), options_.seed);
  }
  decoder->reset();

  // The prefill: the start tokens, then any forced tokens, in one pass; n_group rows (beams or
  // samples) of the same window.
  TokenRows tokens;
  std::vector<float> sum_logprobs(n_group_, 0.0f);
  std::vector<float> logits;
  std::vector<int> forced = options_.forced_tokens;
  if (static_cast<int>(forced.size()) >= sample_len_ || static_cast<int>(start.size() + forced.size()) >= n_ctx_)
    forced.clear();
  for (;;) {
    std::vector<int> prompt = start;
    prompt.insert(prompt.end(), forced.begin(), forced.end());
    tokens.assign(n_group_, prompt);
    std::vector<int> positions = {sot_index_};  // then the positions that predict each forced token
    for (size_t j = 0; j < forced.size(); ++j) positions.push_back(static_cast<int>(start.size() + j) - 1);
    std::vector<float> extra_logits;
    inference.reset();
    inference.logits(tokens, logits, positions, &extra_logits);
    if (extra_logits.size() != positions.size() * n_vocab) {
      throw Error("the model returned no logits at the <|startoftranscript|> position; it must fill extra_logits_out");
    }
    result.no_speech_prob = softmax_probability(std::span<const float>(extra_logits).first(n_vocab), tokenizer_.no_speech());
    if (forced.empty()) break;
    const std::span<const float> forced_logits = std::span<const float>(extra_logits).subspan(n_vocab);
    if (const std::optional<float> sum = forced_logprob(start, forced, forced_logits, n_vocab)) {
      std::fill(sum_logprobs.begin(), sum_logprobs.end(), *sum);
      break;
    }
    forced.clear();  // a token the filters forbid here: decoded in full
  }

  // The main loop, from the first token after the forced ones (chosen from the prefill's logits).
  // Each later step is filtered and reduced to proposals on the engine's device where it can.
  const std::optional<TokenDecoder::Wanted> wanted = decoder->wanted();
  StepProposals proposals;
  for (int i = static_cast<int>(forced.size()); i < sample_len_; ++i) {
    const StepRules rules = step_rules(tokens);
    const bool after_prefill = i > static_cast<int>(forced.size());
    bool completed = false;
    if (after_prefill && wanted && inference.propose(tokens, rules, wanted->selection, wanted->k, proposals)) {
      completed = decoder->update(tokens, proposals, sum_logprobs);
    } else {
      if (after_prefill) inference.logits(tokens, logits);
      if (logits.size() != static_cast<size_t>(n_group_) * n_vocab) {
        throw Error("the model returned " + std::to_string(logits.size()) + " logits for " + std::to_string(n_group_) +
                    " rows of " + std::to_string(n_vocab) + " tokens");
      }
      apply_step_rules(rules, logits, n_vocab);
      completed = decoder->update(tokens, logits, n_vocab, sum_logprobs);
    }
    if (completed || static_cast<int>(tokens[0].size()) > n_ctx_) break;
  }

  // The candidates, cut to the sampled tokens before the first <|endoftext|>, and the best of them.
  DecodingCandidates candidates = decoder->finalize(tokens, sum_logprobs, n_group_);
  for (auto& sequence : candidates.tokens[0]) {
    const auto eot = std::find(sequence.begin(), sequence.end(), tokenizer_.eot());
    const auto begin = sequence.begin() + std::min<long>(sample_begin(), eot - sequence.begin());
    sequence = std::vector<int>(begin, eot);
  }
  const MaximumLikelihoodRanker ranker(options_.length_penalty, options_.length_exponent);
  const int selected = ranker.rank(candidates.tokens, candidates.sum_logprobs)[0];
  result.tokens = std::move(candidates.tokens[0][selected]);
  const double sum_logprob = candidates.sum_logprobs[0][selected];
  result.avg_logprob = sum_logprob / static_cast<double>(result.tokens.size() + 1);
  result.text = strip_whitespace(tokenizer_.decode(result.tokens));
  result.compression_ratio = compression_ratio(result.text);
  return result;
}

std::optional<float> DecodingTask::forced_logprob(const std::vector<int>& start, const std::vector<int>& forced,
                                                  std::span<const float> forced_logits, int n_vocab) const {
  TokenRows before = {start};
  std::vector<float> row;
  float sum = 0.0f;  // added in the order, and the precision, a decoder adds sampled tokens'
  for (size_t j = 0; j < forced.size(); ++j) {
    const std::span<const float> logits = forced_logits.subspan(j * n_vocab, n_vocab);
    row.assign(logits.begin(), logits.end());
    apply_step_rules(step_rules(before), row, n_vocab);
    const float logprob = log_softmax_at(row, forced[j]);
    if (!std::isfinite(logprob)) return std::nullopt;
    sum += logprob;
    before[0].push_back(forced[j]);
  }
  return sum;
}

StepRules DecodingTask::step_rules(const TokenRows& tokens) const {
  StepRules rules;
  rules.row_masks.resize(tokens.size());
  for (const auto& filter : logit_filters_) filter->add_rules(tokens, rules);
  return rules;
}

}  // namespace auris
