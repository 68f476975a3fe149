#include "output/subtitle_lines.h"

#include <gtest/gtest.h>

#include "auris/error.h"
#include "output/output_fixtures_for_tests.h"

namespace auris::output {
namespace {

Transcript two_words() {
  Transcript t;
  Segment s;
  s.start = 0.0;
  s.end = 1.0;
  s.text = " Hello world";
  s.words = {{" Hello", 0.0, 0.5, 0.9}, {" world", 0.6, 1.0, 0.9}};
  t.segments.push_back(s);
  return t;
}

TEST(OutputSubtitleLines, HighlightAddsAGapCueAndUnderlinesWithoutLeadingSpace) {
  const auto cues = subtitle_cues(two_words(), test::subtitle_options({}, {}, {}, true), false, ".");
  ASSERT_EQ(cues.size(), 3u);
  EXPECT_EQ(cues[0].text, "<u>Hello</u> world");
  EXPECT_EQ(cues[1].start, "00:00.500");  // the pause between the words shows the plain text
  EXPECT_EQ(cues[1].end, "00:00.600");
  EXPECT_EQ(cues[1].text, "Hello world");
  EXPECT_EQ(cues[2].text, "Hello <u>world</u>");
}

TEST(OutputSubtitleLines, WithoutWordsOneCuePerSegmentAndArrowsDefused) {
  Transcript t;
  t.segments.push_back(test::text_segment(" a --> b --->", 1.0, 2.0));
  const auto cues = subtitle_cues(t, test::subtitle_options(3, {}, {}, true), true, ",");
  ASSERT_EQ(cues.size(), 1u);
  EXPECT_EQ(cues[0].start, "00:00:01,000");
  EXPECT_EQ(cues[0].text, "a -> b -->");  // Python's str.replace is one left-to-right pass
}

TEST(OutputSubtitleLines, NegativeLimitsAreErrors) {
  EXPECT_THROW(subtitle_cues(two_words(), test::subtitle_options(-1, {}, {}), false, "."), Error);
  EXPECT_THROW(subtitle_cues(two_words(), test::subtitle_options({}, -2, {}), false, "."), Error);
  // openai would loop forever on a negative max_words_per_line.
  EXPECT_THROW(subtitle_cues(two_words(), test::subtitle_options({}, {}, -1), false, "."), Error);
}

TEST(OutputSubtitleLines, ZeroMeansUnsetAsInOpenai) {
  const auto plain = subtitle_cues(two_words(), {}, false, ".");
  const auto zeros = subtitle_cues(two_words(), test::subtitle_options(0, 0, 0),
                                   false, ".");
  ASSERT_EQ(plain.size(), zeros.size());
  EXPECT_EQ(plain[0].text, zeros[0].text);
}

}  // namespace
}  // namespace auris::output

namespace auris::output {
namespace {

TEST(OutputSubtitleLines, UnderlineMatchesPythonRegexSubstitution) {
  const auto words = test::read_output_fixture("primitives.json").at("underlined_words");
  ASSERT_GT(words.size(), 10u);
  for (const auto& [word, expected] : words.items()) EXPECT_EQ(underline_word(word), expected.get<std::string>()) << word;
}

}  // namespace
}  // namespace auris::output
