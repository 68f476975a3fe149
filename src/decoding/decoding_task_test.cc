#include "decoding/decoding_task.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "auris/error.h"
#include "decoding/detect_language.h"
#include "decoding/step_proposals.h"
#include "decoding/step_rules.h"
#include "fake_decoder_model.h"
#include "test_support.h"

namespace auris {
namespace {

using nlohmann::json;

json load_decode_runs() {
  std::ifstream in(test::fixtures_dir() + "/decoding/decode_runs.json");
  if (!in) throw std::runtime_error("missing decode_runs.json: run tools/reference/make_decoding_fixtures.py");
  return json::parse(in);
}

Tokenizer load_tokenizer(const std::string& data_dir, const std::string& vocabulary, int num_languages) {
  return Tokenizer::from_tiktoken_file(data_dir + "/tokenizer/" + vocabulary + ".tiktoken", num_languages);
}

TextOrTokens text_or_tokens(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  return j.get<std::vector<int>>();
}

// The Python DecodingOptions keyword arguments of a fixture run, as ours.
DecodingOptions options_of(const json& o) {
  DecodingOptions options;
  if (o.contains("task")) options.task = o["task"];
  if (!o["language"].is_null()) options.language = o["language"].get<std::string>();
  if (o.contains("beam_size")) options.beam_size = o["beam_size"].get<int>();
  if (o.contains("patience")) options.patience = o["patience"].get<double>();
  if (o.contains("length_penalty")) options.length_penalty = o["length_penalty"].get<double>();
  if (o.contains("sample_len")) options.sample_len = o["sample_len"].get<int>();
  if (o.contains("without_timestamps")) options.without_timestamps = o["without_timestamps"];
  if (o.contains("suppress_blank")) options.suppress_blank = o["suppress_blank"];
  if (o.contains("suppress_tokens")) options.suppress_tokens = text_or_tokens(o["suppress_tokens"]);
  if (o.contains("prompt")) options.prompt = text_or_tokens(o["prompt"]);
  if (o.contains("prefix")) options.prefix = text_or_tokens(o["prefix"]);
  if (o.contains("max_initial_timestamp")) {
    options.max_initial_timestamp = o["max_initial_timestamp"].is_null()
                                        ? std::nullopt
                                        : std::optional<double>(o["max_initial_timestamp"].get<double>());
  }
  return options;
}

test::FakeVocabulary fake_vocabulary(const json& v) {
  return {v["n_vocab"], v["eot"], v["sot"], v["no_speech"], v["timestamp_begin"], v["words"].get<std::vector<int>>()};
}

ModelDims dims_of(const json& v) {
  ModelDims dims;
  dims.n_vocab = v["n_vocab"];
  dims.n_text_ctx = v["n_text_ctx"];
  dims.n_audio_ctx = v["n_audio_ctx"];
  return dims;
}

// An engine whose device filters and chooses (Inference::propose; here the host, through the same
// StepRules and proposals).
class ProposingInference : public test::FakeInference {
 public:
  using FakeInference::FakeInference;
  bool propose(const std::vector<std::vector<int>>& tokens, const StepRules& rules, Selection selection, int k,
               StepProposals& out) override {
    std::vector<float> logits;
    FakeInference::logits(tokens, logits, {}, nullptr);
    apply_step_rules(rules, logits, n_vocab());
    propose_on_host(logits, static_cast<int>(tokens.size()), n_vocab(), selection, k, out);
    ++proposals;
    return true;
  }
  int proposals = 0;
};

// openai's DecodingTask on the fake decoder (greedy, beam search with patience, prompts, prefixes,
// language detection, both vocabularies) against ours on the same fake: same tokens, text and
// probabilities; and the same again where the engine proposes each step after the prefill.
TEST(DecodingTask, MatchesOpenaiOnFakeDecoder) {
  AURIS_REQUIRE_SHARED_DATA(data);
  int runs = 0;
  for (const json& v : load_decode_runs()) {
    const Tokenizer tokenizer = load_tokenizer(data, v["vocabulary"], v["num_languages"]);
    for (const auto& [name, run] : v["runs"].items()) {
      SCOPED_TRACE(v["vocabulary"].get<std::string>() + " " + name);
      DecodingTask task(tokenizer, dims_of(v), options_of(run["options"]));
      EXPECT_EQ(task.initial_tokens(), run["initial_tokens"].get<std::vector<int>>());
      test::FakeInference inference(fake_vocabulary(v));
      const DecodingResult result = task.run(inference);
      ProposingInference proposing(fake_vocabulary(v));
      const DecodingResult proposed = task.run(proposing);
      EXPECT_EQ(proposed.tokens, result.tokens);
      EXPECT_EQ(proposed.avg_logprob, result.avg_logprob);
      EXPECT_EQ(proposing.calls, inference.calls);
      EXPECT_EQ(proposing.proposals, inference.calls - 1 - (result.language_probs ? 1 : 0)) << "all but the prefill";

      const auto tokens = run["tokens"].get<std::vector<int>>();
      EXPECT_EQ(result.tokens, tokens);
      EXPECT_EQ(result.text, run["text"].get<std::string>());
      EXPECT_EQ(result.language, run["language"].get<std::string>());
      EXPECT_NEAR(result.avg_logprob, run["avg_logprob"].get<double>(), 1e-5);
      // torch sums exp() over the vocabulary in float32, so its log-probabilities carry ~1e-6
      // relative noise per step; the sum of ~50 steps agrees to float32 precision, not 1e-5 absolute.
      const double sum_logprob = run["sum_logprob"].get<double>();
      EXPECT_NEAR(result.avg_logprob * (result.tokens.size() + 1), sum_logprob, 1e-5 * std::abs(sum_logprob));
      EXPECT_NEAR(result.no_speech_prob, run["no_speech_prob"].get<double>(), 1e-6);
      EXPECT_DOUBLE_EQ(result.compression_ratio, run["compression_ratio"].get<double>());
      EXPECT_EQ(result.temperature, run["temperature"].get<double>());
      if (run["language_probs"].is_null()) {
        EXPECT_FALSE(result.language_probs);
      } else {
        ASSERT_TRUE(result.language_probs);
        EXPECT_EQ(result.language_probs->size(), run["language_probs"].size());
        for (const auto& [code, p] : run["language_probs"].items()) {
          EXPECT_NEAR(result.language_probs->at(code), p.get<double>(), 1e-6) << code;
        }
      }
      ++runs;
    }
  }
  EXPECT_GE(runs, 30);
}

class DecodingTaskOptions : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string data = test::shared_data_dir();
    if (data.empty()) GTEST_SKIP() << "../shared/data not found (set AURIS_TEST_DATA to the test data)";
    multilingual_ = std::make_unique<Tokenizer>(load_tokenizer(data, "multilingual", 99));
    english_ = std::make_unique<Tokenizer>(load_tokenizer(data, "gpt2", 99));
  }

  ModelDims dims(const Tokenizer& t) const {
    ModelDims d;
    d.n_vocab = t.n_vocab();
    return d;
  }

  // The message of the auris::Error the options raise ("" when they are accepted).
  std::string error_of(const DecodingOptions& options, bool english_only = false) {
    const Tokenizer& t = english_only ? *english_ : *multilingual_;
    try {
      DecodingTask task(t, dims(t), options);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  std::unique_ptr<Tokenizer> multilingual_;
  std::unique_ptr<Tokenizer> english_;
};

// Each bad option gives an auris::Error naming the problem.
TEST_F(DecodingTaskOptions, RejectsBadOptions) {
  EXPECT_EQ(error_of({}), "");
  auto with = [](auto change) {
    DecodingOptions o;
    change(o);
    return o;
  };
  EXPECT_NE(error_of(with([](auto& o) { o.beam_size = 5, o.temperature = 0.4; })).find("beam_size with temperature"),
            std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.best_of = 5; })).find("best_of with greedy"), std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.best_of = 2, o.beam_size = 2, o.temperature = 0.2; })).find("together"),
            std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.patience = 2.0; })).find("patience requires beam_size"), std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.beam_size = 5, o.patience = -1.0; })).find("patience"), std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.beam_size = 0; })).find("beam_size must be 1 to 64"), std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.best_of = 0, o.temperature = 0.5; })).find("best_of must be"),
            std::string::npos);
  // A billion beams or candidates only ran out of memory.
  EXPECT_NE(error_of(with([](auto& o) { o.beam_size = 1000000000; })).find("beam_size must be 1 to 64"), std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.best_of = 65, o.temperature = 0.5; })).find("best_of must be 1 to 64"),
            std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.length_penalty = 1.5; })).find("length_penalty"), std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.length_penalty = 0.5, o.length_exponent = 1.0; })).find("give one"),
            std::string::npos);
  for (const double exponent : {std::nan(""), HUGE_VAL, 11.0})
    EXPECT_NE(error_of(with([&](auto& o) { o.length_exponent = exponent; })).find("length_exponent"), std::string::npos);
  EXPECT_EQ(error_of(with([](auto& o) { o.length_exponent = 0.6; })), "");
  EXPECT_NE(error_of(with([](auto& o) { o.temperature = -0.1; })).find("temperature"), std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.language = "klingon"; })).find("unsupported language"), std::string::npos);
  for (const double penalty : {0.0, -1.0, std::nan(""), HUGE_VAL, 1e-300, 1e300})
    EXPECT_NE(error_of(with([&](auto& o) { o.repetition_penalty = penalty; })).find("repetition_penalty"), std::string::npos);
  EXPECT_EQ(error_of(with([](auto& o) { o.repetition_penalty = 0.5; })), "");
  EXPECT_NE(error_of(with([](auto& o) { o.no_repeat_ngram_size = -1; })).find("no_repeat_ngram_size"), std::string::npos);
  // A language of 2 MB is quoted in part, with its length.
  const std::string long_language = error_of(with([](auto& o) { o.language = std::string(2 << 20, 'x'); }));
  EXPECT_LT(long_language.size(), 400u);
  EXPECT_NE(long_language.find("(2097152 bytes)"), std::string::npos) << long_language;
  EXPECT_NE(error_of(with([](auto& o) { o.task = "summarize"; })).find("unknown task"), std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.task = "translate"; }), true).find("English-only"), std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.language = "de"; }), true).find("English-only"), std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.suppress_tokens = std::string("-1,abc"); })).find("suppress_tokens"),
            std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.suppress_tokens = std::vector<int>{-5}; })).find("suppress_tokens"),
            std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.prompt = std::vector<int>{1, 999999}; })).find("prompt token 999999"),
            std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.sample_len = -3; })).find("sample_len"), std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.max_initial_timestamp = -1.0; })).find("max_initial_timestamp"),
            std::string::npos);
  EXPECT_NE(error_of(with([](auto& o) { o.no_end_before = std::nan(""); })).find("no_end_before"), std::string::npos);
  // sample_len = n_ctx / 2 keeps the whole prefix (Python's list[-0:]), which can overflow the context.
  EXPECT_NE(error_of(with([](auto& o) { o.sample_len = 224, o.prefix = std::vector<int>(500, 300); }))
                .find("leaving no room"),
            std::string::npos);
  // Accepted combinations: English names, language on English-only models, beam search with patience.
  EXPECT_EQ(error_of(with([](auto& o) { o.language = "English"; }), true), "");
  EXPECT_EQ(error_of(with([](auto& o) { o.language = "Castilian", o.task = "translate"; })), "");
  EXPECT_EQ(error_of(with([](auto& o) { o.beam_size = 5, o.patience = 0.5; })), "");
  EXPECT_EQ(error_of(with([](auto& o) { o.best_of = 5, o.temperature = 0.6; })), "");
}

TEST_F(DecodingTaskOptions, StartTokensAndSuppression) {
  DecodingOptions o;
  o.language = "fr";
  o.prompt = std::vector<int>(300, 42);
  o.prefix = std::string("  bonjour ");
  DecodingTask task(*multilingual_, dims(*multilingual_), o);
  const auto& t = *multilingual_;
  const std::vector<int> prefix = t.encode(" bonjour");
  ASSERT_EQ(task.initial_tokens().size(), 1 + 223 + 3 + prefix.size());  // prompt cut to n_ctx / 2 - 1
  EXPECT_EQ(task.initial_tokens()[0], t.sot_prev());
  EXPECT_EQ(task.sot_index(), 224);
  EXPECT_EQ(task.initial_tokens()[225], *t.language_token("fr"));
  EXPECT_EQ(task.max_initial_timestamp_index(), 50);
  const auto& suppressed = task.suppress_tokens();
  EXPECT_TRUE(std::is_sorted(suppressed.begin(), suppressed.end()));
  for (int special : {t.sot(), t.sot_prev(), t.sot_lm(), t.transcribe(), t.translate(), t.no_speech()}) {
    EXPECT_TRUE(std::binary_search(suppressed.begin(), suppressed.end(), special)) << special;
  }
  EXPECT_GT(suppressed.size(), t.non_speech_tokens().size());
}

// Beam search must follow its beams in the model's cache: the fake inference keeps per-row state,
// so skipping rearrange_kv_cache changes the logits and the result.
class NoRearrange : public test::FakeInference {
 public:
  using FakeInference::FakeInference;
  void rearrange_kv_cache(const std::vector<int>&) override {}
};

TEST_F(DecodingTaskOptions, BeamSearchReordersTheCache) {
  const json runs = load_decode_runs();
  const json& v = runs[0];
  const json& run = v["runs"]["beam5"];
  DecodingTask task(*multilingual_, dims_of(v), options_of(run["options"]));
  test::FakeInference faithful(fake_vocabulary(v));
  EXPECT_EQ(task.run(faithful).tokens, run["tokens"].get<std::vector<int>>());
  EXPECT_GT(faithful.rearranges, 10);
  EXPECT_EQ(faithful.prefill_length, 3);
  NoRearrange careless(fake_vocabulary(v));
  EXPECT_NE(task.run(careless).tokens, run["tokens"].get<std::vector<int>>());
}

// Forced tokens are what the decoder would have chosen, prefilled: forcing the start of a greedy
// result gives that result again, with the same log-probability, in fewer calls. A forced token the
// timestamp rules forbid (text before the first timestamp) leaves the window decoded in full.
TEST_F(DecodingTaskOptions, ForcedTokensAreTakenAsSampledOnes) {
  const json runs = load_decode_runs();
  int checked = 0;
  for (const json& v : runs) {
    const Tokenizer tokenizer = load_tokenizer(test::shared_data_dir(), v["vocabulary"], v["num_languages"]);
    for (const char* name : {"greedy", "greedy_prompt_prefix_tokens", "greedy_no_initial_limit"}) {
      SCOPED_TRACE(v["vocabulary"].get<std::string>() + " " + name);
      const json& run = v["runs"][name];
      const auto tokens = run["tokens"].get<std::vector<int>>();
      ASSERT_GE(tokens.size(), 4u);
      DecodingTask full_task(tokenizer, dims_of(v), options_of(run["options"]));
      test::FakeInference full_inference(fake_vocabulary(v));
      const DecodingResult full = full_task.run(full_inference);
      ASSERT_EQ(full.tokens, tokens);
      for (size_t k : {size_t{1}, tokens.size() / 2, tokens.size() - 1}) {
        DecodingOptions o = options_of(run["options"]);
        o.forced_tokens.assign(tokens.begin(), tokens.begin() + static_cast<long>(k));
        DecodingTask task(tokenizer, dims_of(v), o);
        test::FakeInference inference(fake_vocabulary(v));
        const DecodingResult forced = task.run(inference);
        EXPECT_EQ(forced.tokens, tokens) << k << " forced";
        EXPECT_EQ(forced.avg_logprob, full.avg_logprob) << k << " forced";
        EXPECT_EQ(forced.no_speech_prob, full.no_speech_prob);
        EXPECT_EQ(inference.calls, full_inference.calls - static_cast<int>(k)) << k << " forced";
        ++checked;
      }
    }
    const json& run = v["runs"]["greedy"];
    DecodingOptions o = options_of(run["options"]);
    o.forced_tokens = {v["words"][0].get<int>()};  // text where a timestamp must come first
    DecodingTask task(tokenizer, dims_of(v), o);
    test::FakeInference inference(fake_vocabulary(v));
    EXPECT_EQ(task.run(inference).tokens, run["tokens"].get<std::vector<int>>());
  }
  EXPECT_EQ(checked, 18);
  DecodingOptions eot;
  eot.forced_tokens = {multilingual_->eot()};
  EXPECT_NE(error_of(eot).find("<|endoftext|>"), std::string::npos);
}

TEST_F(DecodingTaskOptions, SamplingIsSeededAndRanksBestOf) {
  const json runs = load_decode_runs();
  const json& v = runs[0];
  DecodingOptions o;
  o.language = "en";
  o.temperature = 0.7;
  o.best_of = 3;
  o.seed = 7;
  DecodingTask task(*multilingual_, dims_of(v), o);
  test::FakeInference a(fake_vocabulary(v)), b(fake_vocabulary(v));
  const DecodingResult first = task.run(a);
  const DecodingResult second = task.run(b);
  EXPECT_EQ(first.tokens, second.tokens);
  EXPECT_FALSE(first.tokens.empty());
  EXPECT_EQ(first.temperature, 0.7);
  EXPECT_LT(first.avg_logprob, 0);
}

// An inference whose logits after <|startoftranscript|> favour one language per window.
class WindowLanguages : public Inference {
 public:
  WindowLanguages(int n_vocab, std::vector<std::map<int, float>> windows) : n_vocab_(n_vocab), windows_(std::move(windows)) {}
  void logits(const std::vector<std::vector<int>>& tokens, std::vector<float>& out, const std::vector<int>&,
              std::vector<float>*) override {
    out.assign(tokens.size() * static_cast<size_t>(n_vocab_), 0.0f);
    for (const auto& [token, logit] : windows_.at(static_cast<size_t>(window))) out[static_cast<size_t>(token)] = logit;
  }
  void rearrange_kv_cache(const std::vector<int>&) override {}
  void reset() override {}
  int n_vocab() const override { return n_vocab_; }
  int window = -1;
  int windows_loaded = 0;

 private:
  int n_vocab_;
  std::vector<std::map<int, float>> windows_;
};

// faster-whisper's detect_language: the first window more probable than the threshold decides;
// if none is, the language on top most often, with its highest probability.
TEST_F(DecodingTaskOptions, LanguageDetectionOverWindowsFollowsFasterWhisper) {
  const Tokenizer& t = *multilingual_;
  const int en = *t.language_token("en"), de = *t.language_token("de"), fr = *t.language_token("fr");
  // 99 languages at logit 0; a logit of 6 on one gives it about 0.8, a logit of 3 about 0.17.
  WindowLanguages inference(t.n_vocab(), {{{de, 3.0f}}, {{fr, 3.5f}}, {{en, 6.0f}}, {{fr, 3.0f}}});
  const auto load = [&](int i) {
    inference.window = i;
    ++inference.windows_loaded;
  };
  LanguageDetection d = detect_language(inference, t, 4, 0.5, load);
  EXPECT_EQ(d.code, "en");  // the third window passes the threshold: the fourth is not looked at
  EXPECT_EQ(inference.windows_loaded, 3);
  EXPECT_NEAR(d.probability, d.probabilities.at("en"), 1e-9);
  EXPECT_GT(d.probability, 0.5);

  // No window passes 0.9: fr is on top twice (windows 1 and 3), with its higher probability.
  inference.windows_loaded = 0;
  d = detect_language(inference, t, 4, 0.9, load);
  EXPECT_EQ(inference.windows_loaded, 4);
  EXPECT_EQ(d.code, "fr");
  EXPECT_EQ(d.token, fr);
  inference.window = 1;
  EXPECT_NEAR(d.probability, detect_language(inference, t).probability, 1e-9);

  // One window: its language, whatever its probability (faster-whisper's default).
  inference.windows_loaded = 0;
  d = detect_language(inference, t, 1, 0.9, load);
  EXPECT_EQ(d.code, "de");
  EXPECT_EQ(inference.windows_loaded, 1);

  // Equal counts: the language on top first wins (de before fr over the first two windows).
  d = detect_language(inference, t, 2, 0.9, load);
  EXPECT_EQ(d.code, "de");
}

}  // namespace
}  // namespace auris
