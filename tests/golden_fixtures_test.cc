// The golden fixtures parse and agree with themselves: the reference outputs the parity tests
// compare against are well-formed token sequences for the model they claim to come from.
#include "golden_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace auris::test {
namespace {

class GoldenFixturesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenFixturesTest, MetaMatchesTokens) {
  const GoldenFixtures g(GetParam());
  const auto tokens = golden_detail::read_json(g.dir() / "tokens.json");
  EXPECT_EQ(tokens.at("model").get<std::string>(), GetParam());
  EXPECT_EQ(tokens.at("n_vocab").get<int>(), g.n_vocab());
  EXPECT_EQ(g.meta().at("multilingual").get<bool>(), g.n_vocab() >= 51865);
  const int eot = g.meta().at("special_tokens").at("eot").get<int>();
  EXPECT_EQ(eot, g.n_vocab() >= 51865 ? 50257 : 50256);
}

TEST_P(GoldenFixturesTest, DecodeEntriesAreConsistent) {
  const GoldenFixtures g(GetParam());
  const auto& special = g.meta().at("special_tokens");
  const int eot = special.at("eot").get<int>();
  const int sot = special.at("sot").get<int>();
  const int sot_prev = special.at("sot_prev").get<int>();
  const int no_timestamps = special.at("no_timestamps").get<int>();
  const int timestamp_begin = special.at("timestamp_begin").get<int>();
  const auto sot_sequence = g.meta().at("sot_sequence").get<std::vector<int>>();

  ASSERT_GE(g.decodes().size(), 10u);
  std::set<std::string> ids;
  for (const auto& d : g.decodes()) {
    SCOPED_TRACE(d.id);
    EXPECT_TRUE(ids.insert(d.id).second) << "duplicate id";
    if (d.group != "empty") {
      EXPECT_FALSE(d.tokens.empty());
    }
    for (int t : d.tokens) {
      EXPECT_GE(t, 0);
      EXPECT_LT(t, g.n_vocab());
      EXPECT_NE(t, eot);
    }
    // Initial tokens: [sot_prev, prompt...] then the SOT sequence (language may be detected).
    auto start = std::find(d.initial_tokens.begin(), d.initial_tokens.end(), sot);
    ASSERT_NE(start, d.initial_tokens.end());
    EXPECT_EQ(d.options.prompt.has_value(), d.initial_tokens.front() == sot_prev);
    ASSERT_GE(d.initial_tokens.end() - start, static_cast<long>(sot_sequence.size()));
    if (!d.language_detected && d.options.task == "transcribe") {
      EXPECT_TRUE(std::equal(sot_sequence.begin(), sot_sequence.end(), start));
    }
    if (!d.options.language) {
      EXPECT_TRUE(d.language_detected);
    }
    if (d.language_detected) {
      ASSERT_FALSE(d.language_top5.empty());
      EXPECT_EQ(d.language_top5.front().first, d.language);
    } else {
      EXPECT_EQ(d.language, *d.options.language);
    }

    const bool has_no_ts = std::find(d.initial_tokens.begin(), d.initial_tokens.end(), no_timestamps) !=
                           d.initial_tokens.end();
    EXPECT_EQ(has_no_ts, d.options.without_timestamps);
    std::vector<int> stamps;
    for (int t : d.tokens)
      if (t >= timestamp_begin) stamps.push_back(t);
    if (d.options.without_timestamps) {
      EXPECT_TRUE(stamps.empty());
    } else if (!d.tokens.empty()) {
      EXPECT_TRUE(std::is_sorted(stamps.begin(), stamps.end())) << "timestamps must not go back";
      if (!d.options.prefix) {
        EXPECT_GE(d.tokens.front(), timestamp_begin);
      }
    }
    EXPECT_TRUE(std::isfinite(d.avg_logprob));
    EXPECT_LE(d.avg_logprob, 0.0);
    EXPECT_GE(d.no_speech_prob, 0.0);
    EXPECT_LE(d.no_speech_prob, 1.0);
    EXPECT_EQ(d.temperature, 0.0);
    EXPECT_EQ(d.text.empty(), d.tokens.size() == stamps.size());
  }
  // The cases the parity tests rely on are all there.
  for (const char* id : {"jfk/greedy_ts", "jfk/greedy_nots", "jfk/beam5_ts", "jfk/beam5_nots",
                         "jfk/prompt_prefix_nots", "jfk/prompt_ts", "jfk/prefix_ts"})
    EXPECT_NO_THROW(g.decode(id));
  EXPECT_EQ(g.decode("jfk/beam5_ts").options.beam_size, 5);
}

TEST_P(GoldenFixturesTest, LanguageDetectionsAreRanked) {
  const GoldenFixtures g(GetParam());
  if (g.n_vocab() < 51865) {
    EXPECT_TRUE(g.detections().empty()) << "an English-only model detects no language";
    return;
  }
  EXPECT_EQ(g.detections().size(), 8u);
  for (const auto& d : g.detections()) {
    SCOPED_TRACE(d.id);
    ASSERT_EQ(d.top5.size(), 5u);
    EXPECT_EQ(d.top5.front().first, d.language);
    double sum = 0;
    for (size_t i = 0; i < d.top5.size(); ++i) {
      sum += d.top5[i].second;
      if (i > 0) {
        EXPECT_LE(d.top5[i].second, d.top5[i - 1].second);
      }
    }
    EXPECT_LE(sum, 1.0 + 1e-6);
  }
}

TEST_P(GoldenFixturesTest, ArraysHaveTheirShapes) {
  const GoldenFixtures g(GetParam());
  const auto& dims = g.meta().at("dims");
  const auto& jfk = g.meta().at("jfk");
  const auto rows = jfk.at("encoder_rows").get<std::vector<int>>();
  const auto frames = jfk.at("mel_frames").get<std::vector<int>>();

  const GoldenArray encoder = g.array("jfk_encoder_rows.bin");
  EXPECT_EQ(encoder.shape, (std::vector<int64_t>{static_cast<int64_t>(rows.size()),
                                                 dims.at("n_audio_state").get<int64_t>()}));
  const GoldenArray mel = g.array("jfk_mel_frames.bin");
  EXPECT_EQ(mel.shape, (std::vector<int64_t>{static_cast<int64_t>(frames.size()),
                                             dims.at("n_mels").get<int64_t>()}));
  for (const char* name : {"jfk_logits_sot.bin", "jfk_logits_notimestamps.bin"}) {
    SCOPED_TRACE(name);
    const GoldenArray logits = g.array(name);
    EXPECT_EQ(logits.shape, (std::vector<int64_t>{g.n_vocab()}));
    EXPECT_TRUE(std::all_of(logits.data.begin(), logits.data.end(), [](float v) { return std::isfinite(v); }));
  }
  // The raw logits after the no-timestamps prompt rank the greedy first token near the top
  // (decode() only suppresses blanks and symbols on top of them).
  const GoldenArray logits = g.array("jfk_logits_notimestamps.bin");
  const int first = g.decode("jfk/greedy_nots").tokens.front();
  const long better = std::count_if(logits.data.begin(), logits.data.end(),
                                    [&](float v) { return v > logits.data[first]; });
  EXPECT_LT(better, 5);
}

TEST(GoldenFixtures, MissingModelSaysHowToRegenerate) {
  try {
    GoldenFixtures g("no-such-model");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("golden.py"), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, GoldenFixturesTest, ::testing::Values("tiny.en", "base"),
                         [](const auto& info) { return info.param == "tiny.en" ? "tiny_en" : info.param; });

}  // namespace
}  // namespace auris::test
