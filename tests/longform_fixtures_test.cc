// The long-form fixtures parse and agree with themselves: the windows, fallback attempts, prompts and
// segments recorded from openai/whisper's transcribe() fit together the way transcribe() builds them,
// and no text is placed in the audio's long silence.
#include "longform_fixtures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "golden_fixtures.h"

namespace auris::test {
namespace {

constexpr double kFramesPerSecond = 100.0;  // mel hop of 10 ms
constexpr int kWindowFrames = 3000;
// Word and segment times are quantized to 20 ms and words are aligned by DTW; allow this much
// slack at the edges of a silence.
constexpr double kSilenceMarginS = 0.5;

struct SpecialTokens {
  int eot = 0, timestamp_begin = 0;
};

SpecialTokens special_tokens(const std::string& model) {
  const GoldenFixtures g(model);
  const auto& s = g.meta().at("special_tokens");
  return {s.at("eot").get<int>(), s.at("timestamp_begin").get<int>()};
}

// Whether `part` occurs in `whole` at or after `from`, contiguously; advances `from` past it.
bool find_contiguous(const std::vector<int>& whole, const std::vector<int>& part, size_t& from) {
  const auto it = std::search(whole.begin() + static_cast<long>(from), whole.end(), part.begin(), part.end());
  if (it == whole.end()) return false;
  from = static_cast<size_t>(it - whole.begin()) + part.size();
  return true;
}

void check_windows(const LongformTranscript& t) {
  ASSERT_FALSE(t.windows.empty());
  const int content_frames = static_cast<int>(std::lround(t.duration_s * kFramesPerSecond));
  for (size_t i = 0; i < t.windows.size(); ++i) {
    const LongformWindow& w = t.windows[i];
    SCOPED_TRACE("window at seek " + std::to_string(w.seek));
    if (i > 0) {
      EXPECT_GT(w.seek, t.windows[i - 1].seek) << "windows must move forward";
    }
    EXPECT_GT(w.segment_size, 0);
    EXPECT_LE(w.segment_size, kWindowFrames);
    if (t.duration_s > 0) {
      EXPECT_LE(w.seek + w.segment_size, content_frames + 1);
    }
    ASSERT_FALSE(w.attempts.empty());
    ASSERT_LE(w.attempts.size(), t.options.temperatures.size());
    for (size_t a = 0; a < w.attempts.size(); ++a) {
      // The fallback walks the temperature schedule in order.
      EXPECT_EQ(w.attempts[a].temperature, t.options.temperatures[a]);
      EXPECT_EQ(w.attempts[a].tokens.has_value(), w.attempts[a].temperature == 0.0);
      EXPECT_LE(w.attempts[a].avg_logprob, 0.0);
    }
    EXPECT_EQ(w.fallback, w.attempts.size() > 1);
    EXPECT_EQ(w.final_temperature, w.attempts.back().temperature);
    const long n = std::count_if(t.segments.begin(), t.segments.end(),
                                 [&](const LongformSegment& s) { return s.seek == w.seek; });
    EXPECT_EQ(w.n_segments, n);
    if (w.skipped_no_speech) {
      EXPECT_EQ(n, 0);
    }
  }
  if (t.duration_s > 0) {
    const LongformWindow& last = t.windows.back();
    EXPECT_NEAR(last.seek + last.segment_size, content_frames, 1) << "the last window reaches the end";
  }
}

void check_segments(const LongformTranscript& t, const SpecialTokens& special) {
  std::map<int, const LongformWindow*> windows;
  for (const auto& w : t.windows) windows[w.seek] = &w;
  std::map<int, size_t> token_cursor;  // per window: where the next segment's tokens may start
  std::string joined;
  for (size_t i = 0; i < t.segments.size(); ++i) {
    const LongformSegment& s = t.segments[i];
    SCOPED_TRACE("segment " + std::to_string(s.id) + ": " + s.text);
    EXPECT_EQ(s.id, static_cast<int>(i));
    ASSERT_TRUE(windows.count(s.seek)) << "a segment from a window that was not recorded";
    const LongformWindow& w = *windows.at(s.seek);
    EXPECT_LE(s.start, s.end);
    if (i > 0) {
      EXPECT_GE(s.seek, t.segments[i - 1].seek);
      EXPECT_GE(s.start, t.segments[i - 1].start);
    }
    // A segment carries the DecodingResult its window kept.
    EXPECT_EQ(s.temperature, w.final_temperature);
    EXPECT_EQ(s.avg_logprob, w.attempts.back().avg_logprob);
    EXPECT_EQ(s.no_speech_prob, w.attempts.back().no_speech_prob);
    EXPECT_EQ(s.text.empty(), s.tokens.empty());
    for (int token : s.tokens) {
      EXPECT_NE(token, special.eot);
      EXPECT_GE(token, 0);
    }
    if (!s.tokens.empty()) {
      EXPECT_GE(s.tokens.front(), special.timestamp_begin) << "a segment opens with a timestamp";
    }
    // Deterministic windows: the segment is a contiguous slice of the temperature-0 tokens.
    if (s.temperature == 0.0 && !s.tokens.empty()) {
      EXPECT_TRUE(find_contiguous(*w.attempts.back().tokens, s.tokens, token_cursor[s.seek]));
    }
    if (t.options.word_timestamps && !s.text.empty()) {
      ASSERT_FALSE(s.words.empty());
      std::string words;
      for (size_t k = 0; k < s.words.size(); ++k) {
        const LongformWord& word = s.words[k];
        words += word.word;
        EXPECT_LE(word.start, word.end);
        EXPECT_GE(word.probability, 0.0);
        EXPECT_LE(word.probability, 1.0);
        if (k > 0) {
          EXPECT_GE(word.start, s.words[k - 1].end - 1e-9);
        }
      }
      EXPECT_EQ(words, s.text);
      EXPECT_LE(s.start, s.words.front().start + 1e-9);
      EXPECT_GE(s.end, s.words.back().end - 1e-9);
    }
    joined += s.text;
  }
  EXPECT_EQ(joined, t.text);
}

// transcribe() prompts each window with the tokens of all kept segments since the last reset (a
// window kept at temperature > 0.5 resets; skipped windows add nothing).
void check_prompts(const LongformTranscript& t) {
  if (!t.options.condition_on_previous_text || t.options.initial_prompt) return;
  size_t all_tokens = 0, reset_since = 0;
  for (const auto& w : t.windows) {
    SCOPED_TRACE("window at seek " + std::to_string(w.seek));
    EXPECT_EQ(static_cast<size_t>(w.prompt_len), all_tokens - reset_since);
    if (w.skipped_no_speech) continue;
    for (const auto& s : t.segments)
      if (s.seek == w.seek) all_tokens += s.tokens.size();
    if (w.final_temperature > 0.5) reset_since = all_tokens;
  }
}

void check_wer(const LongformWer& wer) {
  EXPECT_EQ(wer.reference_words, wer.hits + wer.substitutions + wer.deletions);
  ASSERT_GT(wer.reference_words, 0);
  EXPECT_NEAR(wer.wer, double(wer.substitutions + wer.deletions + wer.insertions) / wer.reference_words, 1e-12);
}

void check_transcript(const std::string& model, const std::string& file) {
  SCOPED_TRACE(model + "/" + file);
  const LongformTranscript t = load_longform_transcript(model, file);
  EXPECT_EQ(t.model, model);
  EXPECT_FALSE(t.text.empty());
  EXPECT_EQ(t.options.task, "transcribe");
  if (t.options.language) {
    EXPECT_EQ(t.language, *t.options.language);
  }
  check_windows(t);
  check_segments(t, special_tokens(model));
  check_prompts(t);
  if (t.wer) check_wer(*t.wer);
}

class LongformFixturesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(LongformFixturesTest, ConcatTranscriptsAreConsistent) {
  for (const auto& set : longform_option_sets()) {
    SCOPED_TRACE(set);
    check_transcript(GetParam(), "hifitts-dev-concat." + set + ".json");
    const LongformTranscript t = load_longform_concat(GetParam(), set);
    EXPECT_EQ(t.option_set, set);
    EXPECT_EQ(t.options.word_timestamps, set == "greedy_words");
    EXPECT_EQ(t.options.beam_size, set == "beam5" ? std::optional<int>(5) : std::nullopt);
    ASSERT_TRUE(t.wer.has_value());
    EXPECT_EQ(t.fallback_happened,
              std::any_of(t.windows.begin(), t.windows.end(), [](const auto& w) { return w.fallback; }));
  }
}

TEST_P(LongformFixturesTest, NoTextInTheLongSilence) {
  for (const auto& set : longform_option_sets()) {
    SCOPED_TRACE(set);
    const LongformTranscript t = load_longform_concat(GetParam(), set);
    // The clip has one long silence; the generator found it in the audio.
    const auto longest = std::max_element(t.silences_s.begin(), t.silences_s.end(), [](auto a, auto b) {
      return a.second - a.first < b.second - b.first;
    });
    ASSERT_NE(longest, t.silences_s.end());
    ASSERT_GE(longest->second - longest->first, 15.0);
    const double quiet_from = longest->first + kSilenceMarginS, quiet_to = longest->second - kSilenceMarginS;
    bool text_before = false, text_after = false;
    for (const auto& s : t.segments) {
      if (s.text.empty()) continue;
      SCOPED_TRACE(s.text);
      EXPECT_FALSE(s.start >= quiet_from && s.end <= quiet_to) << "a segment inside the silence";
      EXPECT_FALSE(s.start < longest->first && s.end > longest->second) << "a segment across the silence";
      for (const auto& w : s.words)
        EXPECT_FALSE(w.end > quiet_from && w.start < quiet_to) << "word '" << w.word << "' in the silence";
      text_before |= s.end <= quiet_from;
      text_after |= s.start >= longest->first;
    }
    EXPECT_TRUE(text_before && text_after) << "speech on both sides of the silence";
  }
}

TEST_P(LongformFixturesTest, UtterancesAndWer) {
  const LongformUtterances u = load_longform_utterances(GetParam());
  EXPECT_EQ(u.model, GetParam());
  EXPECT_EQ(u.utterances.size(), 58u);
  EXPECT_EQ(u.options.language, std::optional<std::string>("en"));
  std::set<std::string> clips;
  int reference_words = 0;
  for (const auto& e : u.utterances) {
    SCOPED_TRACE(e.clip);
    EXPECT_TRUE(clips.insert(e.clip).second);
    EXPECT_FALSE(e.normalized_reference.empty());
    EXPECT_EQ(e.text.empty(), e.normalized_text.empty());
    for (const char c : e.normalized_reference + e.normalized_text) {
      EXPECT_FALSE(std::isupper(static_cast<unsigned char>(c))) << "normalized text is lower case";
    }
    for (size_t pos = 0, next; pos <= e.normalized_reference.size(); pos = next + 1) {
      next = e.normalized_reference.find(' ', pos);
      if (next == std::string::npos) next = e.normalized_reference.size();
      reference_words += next > pos;
    }
  }
  check_wer(u.wer);
  EXPECT_EQ(u.wer.reference_words, reference_words) << "the WER counts every reference word once";
}

TEST(LongformFixtures, BaseDetectsTheLanguageItsDetectionFixtureRecords) {
  const auto clips = load_longform_multilingual("base");
  ASSERT_GE(clips.size(), 8u);
  const GoldenFixtures golden("base");
  int compared = 0;
  for (const auto& c : clips) {
    SCOPED_TRACE(c.clip);
    // transcribe() detects on the same window golden.py's detect_language() entries used.
    for (const auto& d : golden.detections())
      if (d.clip == c.clip) {
        EXPECT_EQ(c.language, d.language);
        ++compared;
      }
  }
  EXPECT_EQ(compared, static_cast<int>(golden.detections().size()));
}

TEST(LongformFixtures, BaseJfkWordTimestamps) {
  check_transcript("base", "jfk.words.json");
  const LongformTranscript t = load_longform_transcript("base", "jfk.words.json");
  EXPECT_TRUE(t.options.word_timestamps);
  ASSERT_FALSE(t.segments.empty());
  EXPECT_FALSE(t.segments.front().words.empty());
}

TEST(LongformFixtures, MissingFileSaysHowToRegenerate) {
  try {
    load_longform_concat("no-such-model", "greedy_fallback");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("golden_longform.py"), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, LongformFixturesTest, ::testing::Values("tiny.en", "base"),
                         [](const auto& info) { return info.param == "tiny.en" ? "tiny_en" : info.param; });

}  // namespace
}  // namespace auris::test
