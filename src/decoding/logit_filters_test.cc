#include "decoding/logit_filters.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "fake_decoder_model.h"
#include "test_support.h"

namespace auris {
namespace {

using nlohmann::json;

json load_fixture(const std::string& name) {
  std::ifstream in(test::fixtures_dir() + "/decoding/" + name);
  if (!in) throw std::runtime_error("missing fixture " + name + ": run tools/reference/make_decoding_fixtures.py");
  return json::parse(in);
}

std::unique_ptr<LogitFilter> make_filter(const json& vocab, const json& c) {
  const std::string kind = c["filter"];
  if (kind == "suppress_blank") {
    return std::make_unique<SuppressBlank>(vocab["blank_tokens"].get<std::vector<int>>(), vocab["eot"].get<int>(),
                                           c["sample_begin"].get<int>());
  }
  if (kind == "suppress_tokens") return std::make_unique<SuppressTokens>(c["suppress_tokens"].get<std::vector<int>>());
  std::optional<int> max_index;
  if (!c["max_initial_timestamp_index"].is_null()) max_index = c["max_initial_timestamp_index"].get<int>();
  return std::make_unique<ApplyTimestampRules>(
      ApplyTimestampRules::Tokens{vocab["eot"], vocab["no_timestamps"], vocab["timestamp_begin"]},
      c["sample_begin"].get<int>(), max_index);
}

std::uint64_t bits_sum(const float* row, int n) {
  std::uint64_t sum = 0;
  for (int i = 0; i < n; ++i) sum += std::bit_cast<std::uint32_t>(row[i]);
  return sum;
}

// Every fixture row: the same pseudo-random logits, then exactly the reference's -inf positions
// and every other value untouched.
TEST(LogitFilters, MatchOpenaiOnRandomContexts) {
  const json fixture = load_fixture("logit_filters.json");
  int rows_checked = 0;
  int timestamp_forced = 0;
  for (const json& vocab : fixture) {
    const int n_vocab = vocab["n_vocab"];
    const int tb = vocab["timestamp_begin"];
    for (const json& c : vocab["cases"]) {
      const auto filter = make_filter(vocab, c);
      TokenRows tokens;
      std::vector<float> logits;
      for (const json& r : c["rows"]) {
        std::vector<std::pair<int, float>> overrides;
        for (const json& o : r["overrides"]) overrides.emplace_back(o[0].get<int>(), o[1].get<float>());
        const auto row = test::random_logits(r["seed"].get<std::uint64_t>(), n_vocab, r["scale"].get<float>(), overrides);
        ASSERT_EQ(std::to_string(bits_sum(row.data(), n_vocab)), r["input_fingerprint"].get<std::string>())
            << "pseudo-random logits differ from the Python generator";
        logits.insert(logits.end(), row.begin(), row.end());
        tokens.push_back(r["tokens"].get<std::vector<int>>());
      }
      const std::vector<float> before = logits;
      filter->apply(logits, n_vocab, tokens);
      for (size_t k = 0; k < tokens.size(); ++k) {
        std::vector<char> expected_masked(n_vocab, 0);
        for (const json& range : c["rows"][k]["masked"])
          for (int t = range[0]; t < range[1].get<int>(); ++t) expected_masked[t] = 1;
        int mismatches = 0;
        for (int t = 0; t < n_vocab && mismatches < 5; ++t) {
          const float got = logits[k * n_vocab + t];
          const float want = expected_masked[t] ? -INFINITY : before[k * n_vocab + t];
          if (std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(want)) {
            ++mismatches;
            ADD_FAILURE() << vocab["vocabulary"] << " " << c["filter"] << " row " << k << " token " << t << ": got "
                          << got << ", want " << want << "; tokens " << c["rows"][k]["tokens"].dump();
          }
        }
        timestamp_forced += c["filter"] == "timestamp_rules" && expected_masked[0] && !expected_masked[tb];
        ++rows_checked;
      }
    }
  }
  EXPECT_GT(rows_checked, 400);
  EXPECT_GT(timestamp_forced, 20) << "the fixtures should exercise the timestamp-probability rule";
}

// Vocabulary: text 0..9, eot 10, no_timestamps 11, timestamps 12..21; sampling starts at 1.
// Which logits the rules mask after `row` ('x'), text and eot far above any timestamp so that the
// probability rule stays out.
std::string masked_after(const ApplyTimestampRules& rules, const std::vector<int>& row) {
  const int n_vocab = 22;
  std::vector<float> logits(n_vocab, 0.0f);
  logits[3] = logits[10] = 5.0f;
  rules.apply(logits, n_vocab, {row});
  std::string mask;
  for (float x : logits) mask += std::isinf(x) ? 'x' : '.';
  return mask;
}

TEST(LogitFilters, TimestampPairsAndMonotonicity) {
  const ApplyTimestampRules rules({10, 11, 12}, 1, std::nullopt);
  // text, then an opening timestamp 14: the pair must close at >= 14 (or end), no text.
  EXPECT_EQ(masked_after(rules, {0, 5, 14}), "xxxxxxxxxx.xxx........");
  // a closed pair (14, 15): text must follow, no timestamps.
  EXPECT_EQ(masked_after(rules, {0, 14, 15}), "...........xxxxxxxxxxx");
  // after text following timestamp 15, the next timestamp must be > 15 (a segment is never empty).
  EXPECT_EQ(masked_after(rules, {0, 14, 15, 3}), "...........xxxxx......");
  // the first sampled token must be a timestamp.
  EXPECT_EQ(masked_after(rules, {0}), "xxxxxxxxxxxx..........");
}

TEST(LogitFilters, NoEndBeforeForbidsEndingAfterAnEarlyPair) {
  // The window may not end after a pair earlier than timestamp index 5 (token 17).
  const ApplyTimestampRules rules({10, 11, 12}, 1, std::nullopt, /*no_end_before_index=*/5);
  // a pair at 15 (index 3): text must follow, and the end is forbidden too.
  EXPECT_EQ(masked_after(rules, {0, 14, 15}), "..........xxxxxxxxxxxx");
  // a pair at 17 (index 5) may end the window, as without the option.
  EXPECT_EQ(masked_after(rules, {0, 16, 17}), "...........xxxxxxxxxxx");
  // a single closing timestamp may still end it: the segment is whole.
  EXPECT_EQ(masked_after(rules, {0, 5, 14}), "xxxxxxxxxx.xxx........");
  // the first timestamp is not a pair.
  EXPECT_EQ(masked_after(rules, {0, 12}), "...........xxxxxxxxxxx");
}

// CTranslate2's RepetitionPenalty: each token the row holds past sample_begin, once, divided
// where positive and multiplied where negative; the start tokens are not penalised.
TEST(LogitFilters, RepetitionPenaltyAsCTranslate2) {
  const RepetitionPenalty penalty(2.0f, /*sample_begin=*/2);
  std::vector<float> logits = {4, 4, -3, 6, 0, 1, 4, 4, -3, 6, 0, 1};
  // row 0 holds 3 twice and 2 once; row 1 holds 0 (a start token) and 5.
  penalty.apply(logits, 6, {{0, 1, 3, 2, 3}, {0, 1, 5}});
  EXPECT_EQ(logits, (std::vector<float>{4, 4, -6, 3, 0, 1, 4, 4, -3, 6, 0, 0.5f}));
}

// CTranslate2's NoRepeatNgram over the sampled tokens: the token after each earlier occurrence of
// the last n - 1 tokens is forbidden.
TEST(LogitFilters, NoRepeatNgramAsCTranslate2) {
  auto masked = [](int n, const std::vector<int>& row) {
    std::vector<float> logits(8, 0.0f);
    NoRepeatNgram(n, /*sample_begin=*/1).apply(logits, 8, {row});
    std::string mask;
    for (float x : logits) mask += std::isinf(x) ? 'x' : '.';
    return mask;
  };
  // Bigrams: the last token 2 came before 3 and 5, so those are forbidden.
  EXPECT_EQ(masked(2, {7, 2, 3, 2, 5, 2}), "...x.x..");
  // Trigrams: "2 3" came before 4 only (the start token 7 does not count).
  EXPECT_EQ(masked(3, {7, 2, 3, 4, 2, 3}), "....x...");
  EXPECT_EQ(masked(3, {2, 3, 4, 2, 3}), "........");  // its "2 3 4" starts before sample_begin
  // Unigrams: every token sampled so far.
  EXPECT_EQ(masked(1, {7, 1, 6}), ".x....x.");
  // Fewer sampled tokens than n: nothing.
  EXPECT_EQ(masked(4, {7, 1, 1, 1}), "........");
}

}  // namespace
}  // namespace auris
