// find_alignment after the forward pass and add_word_timestamps, against openai's own code run on
// the same attention scores and logits (tools/reference/make_timing_fixtures.py's stand-in model).
#include "transcribe/word_timestamps.h"

#include <gtest/gtest.h>

#include "transcribe/timing_fixtures_for_tests.h"

namespace auris {
namespace {

constexpr double kTolerance = 1e-6;

struct AlignmentCase {
  nlohmann::json json;
  const Tokenizer* tokenizer = nullptr;
  AlignmentScores scores;
  std::vector<int> text_tokens;
};

AlignmentCase load_case(const std::string& data, int index) {
  AlignmentCase c;
  c.json = test::read_timing_fixture("add_word_timestamps_" + std::to_string(index) + ".json");
  c.tokenizer = &test::fixture_tokenizer(data, c.json.at("encoding").get<std::string>());
  const int eot = c.tokenizer->eot();
  for (const auto& s : c.json.at("segments_in"))
    for (int t : s.at("tokens").get<std::vector<int>>())
      if (t < eot) c.text_tokens.push_back(t);
  const int sot_length = static_cast<int>(c.json.at("sot_sequence").size());

  AlignmentScores& s = c.scores;
  s.n_heads = static_cast<int>(c.json.at("heads").size());
  s.n_frames = c.json.at("n_ctx").get<int>();
  s.n_tokens = sot_length + static_cast<int>(c.text_tokens.size()) + 2;
  for (const auto& head : c.json.at("cross_scores"))
    for (const auto& v : head) s.cross_scores.push_back(std::stof(v.get<std::string>()));
  // Dense logits of the rows that predict the text tokens.
  const int n_vocab = c.tokenizer->n_vocab();
  std::vector<float> logits(c.text_tokens.size() * static_cast<size_t>(n_vocab), 0.0f);
  for (const auto& e : c.json.at("logits")) {
    const int row = e[0].get<int>() - sot_length;
    if (row >= 0 && row < static_cast<int>(c.text_tokens.size()))
      logits[static_cast<size_t>(row) * n_vocab + e[1].get<int>()] = static_cast<float>(e[2].get<double>());
  }
  s.text_token_probs = text_token_probabilities(logits, n_vocab, eot, c.text_tokens);
  return c;
}

std::vector<WordTiming> align(const AlignmentCase& c) {
  return align_words(c.scores, *c.tokenizer, c.json.at("language").get<std::string>(),
                     static_cast<int>(c.json.at("sot_sequence").size()), c.text_tokens, c.json.at("num_frames").get<int>());
}

class WordTimestampsFixture : public ::testing::TestWithParam<int> {};

TEST_P(WordTimestampsFixture, FindAlignmentEqualsOpenai) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const AlignmentCase c = load_case(data, GetParam());
  const std::vector<WordTiming> words = align(c);
  const auto& expected = c.json.at("alignment");
  ASSERT_EQ(words.size(), expected.size());
  for (size_t i = 0; i < words.size(); ++i) {
    SCOPED_TRACE("word " + std::to_string(i));
    EXPECT_EQ(words[i].word, expected[i].at("word").get<std::string>());
    EXPECT_EQ(words[i].tokens, expected[i].at("tokens").get<std::vector<int>>());
    EXPECT_NEAR(words[i].start, expected[i].at("start").get<double>(), kTolerance);
    EXPECT_NEAR(words[i].end, expected[i].at("end").get<double>(), kTolerance);
    EXPECT_NEAR(words[i].probability, expected[i].at("probability").get<double>(), kTolerance);
  }
}

TEST_P(WordTimestampsFixture, AddWordTimestampsEqualsOpenai) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const AlignmentCase c = load_case(data, GetParam());
  std::vector<Segment> segments;
  for (const auto& s : c.json.at("segments_in")) {
    Segment seg;
    seg.seek = s.at("seek").get<int>();
    seg.start = s.at("start").get<double>();
    seg.end = s.at("end").get<double>();
    seg.tokens = s.at("tokens").get<std::vector<int>>();
    segments.push_back(seg);
  }
  apply_word_alignment(segments, align(c), c.tokenizer->eot(), kDefaultPrependPunctuations, kDefaultAppendPunctuations,
                       c.json.at("last_speech_timestamp").get<double>());
  const auto& expected = c.json.at("segments_out");
  ASSERT_EQ(segments.size(), expected.size());
  for (size_t i = 0; i < segments.size(); ++i) {
    SCOPED_TRACE("segment " + std::to_string(i));
    EXPECT_NEAR(segments[i].start, expected[i].at("start").get<double>(), kTolerance);
    EXPECT_NEAR(segments[i].end, expected[i].at("end").get<double>(), kTolerance);
    const auto& words = expected[i].at("words");
    ASSERT_EQ(segments[i].words.size(), words.size());
    for (size_t k = 0; k < words.size(); ++k) {
      EXPECT_EQ(segments[i].words[k].word, words[k].at("word").get<std::string>());
      EXPECT_NEAR(segments[i].words[k].start, words[k].at("start").get<double>(), kTolerance);
      EXPECT_NEAR(segments[i].words[k].end, words[k].at("end").get<double>(), kTolerance);
      EXPECT_NEAR(segments[i].words[k].probability, words[k].at("probability").get<double>(), kTolerance);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, WordTimestampsFixture, ::testing::Range(0, 5));

TEST(WordTimestamps, NoTextGivesNoWords) {
  std::vector<Segment> segments(1);
  segments[0].start = 1.0;
  segments[0].end = 2.0;
  apply_word_alignment(segments, {}, 50256, kDefaultPrependPunctuations, kDefaultAppendPunctuations, 0.0);
  EXPECT_TRUE(segments[0].words.empty());
  EXPECT_EQ(segments[0].start, 1.0);
  EXPECT_EQ(segments[0].end, 2.0);
}

}  // namespace
}  // namespace auris
