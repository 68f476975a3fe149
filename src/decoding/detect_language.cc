#include "decoding/detect_language.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "auris/error.h"

namespace auris {

LanguageDetection detect_language(Inference& inference, const Tokenizer& tokenizer) {
  if (!tokenizer.multilingual()) {
    throw Error("this model is English-only and has no language tokens, so it cannot detect the language; "
                "use a multilingual model or set the language to English");
  }
  const int n_vocab = inference.n_vocab();
  std::vector<float> logits;
  inference.reset();
  inference.logits({{tokenizer.sot()}}, logits);
  if (static_cast<int>(logits.size()) != n_vocab) {
    throw Error("the model returned " + std::to_string(logits.size()) + " logits for language detection, expected " +
                std::to_string(n_vocab));
  }
  const std::vector<int> language_tokens = tokenizer.all_language_tokens();

  // Argmax (first maximum, as torch) and softmax over the language tokens only; all others are -inf.
  LanguageDetection result;
  float max_logit = -std::numeric_limits<float>::infinity();
  for (int t : language_tokens) {
    if (result.token < 0 || logits[t] > max_logit) {
      max_logit = logits[t];
      result.token = t;
    }
  }
  double sum = 0.0;
  for (int t : language_tokens) sum += std::exp(static_cast<double>(logits[t] - max_logit));
  for (int t : language_tokens) {
    result.probabilities[tokenizer.language_code(t)] =
        static_cast<float>(std::exp(static_cast<double>(logits[t] - max_logit)) / sum);
  }
  result.code = tokenizer.language_code(result.token);
  result.probability = result.probabilities.at(result.code);
  return result;
}

LanguageDetection detect_language(Inference& inference, const Tokenizer& tokenizer, int windows, double threshold,
                                  const std::function<void(int)>& load_window) {
  struct Tally {
    int count = 0;
    double highest = 0.0;
    size_t first = 0;  // the window it was first on top in
  };
  std::map<int, Tally> tallies;  // by language token
  LanguageDetection last;
  for (int i = 0; i < std::max(windows, 1); ++i) {
    load_window(i);
    last = detect_language(inference, tokenizer);
    if (last.probability > threshold) return last;
    Tally& tally = tallies.try_emplace(last.token, Tally{0, 0.0, static_cast<size_t>(i)}).first->second;
    ++tally.count;
    tally.highest = std::max(tally.highest, last.probability);
  }
  const auto most = std::max_element(tallies.begin(), tallies.end(), [](const auto& a, const auto& b) {
    return a.second.count != b.second.count ? a.second.count < b.second.count : a.second.first > b.second.first;
  });
  LanguageDetection decided = std::move(last);
  decided.token = most->first;
  decided.code = tokenizer.language_code(most->first);
  decided.probability = most->second.highest;
  return decided;
}

}  // namespace auris
