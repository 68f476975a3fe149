#include "decoding/strip_whitespace.h"

#include <gtest/gtest.h>

#include "decoding/compression_ratio.h"

namespace auris {
namespace {

TEST(StripWhitespace, StripsWhatPythonStripStrips) {
  EXPECT_EQ(strip_whitespace("  hello world \n\t"), "hello world");
  EXPECT_EQ(strip_whitespace("\x1f\x0b x \x1c"), "x");
  // U+3000 ideographic space, U+00A0 no-break space, U+2028 line separator are str.isspace().
  EXPECT_EQ(strip_whitespace("\xE3\x80\x80\xC2\xA0\xE3\x81\x82\xE2\x80\xA8"), "\xE3\x81\x82");
  // U+200B zero-width space is not.
  EXPECT_EQ(strip_whitespace("\xE2\x80\x8B a"), "\xE2\x80\x8B a");
  EXPECT_EQ(strip_whitespace(" \n "), "");
}

TEST(StripWhitespace, PromptTextTakesOneLeadingSpace) {
  EXPECT_EQ(spaced_for_prompt("\n  Hello there.  "), " Hello there.");
  EXPECT_EQ(spaced_for_prompt("word"), " word");
  EXPECT_EQ(spaced_for_prompt("   "), " ");
}

TEST(CompressionRatio, MeasuresRepetition) {
  EXPECT_EQ(compression_ratio(""), 0.0);  // zlib.compress(b"") is 8 bytes
  std::string repeated;
  for (int i = 0; i < 40; ++i) repeated += "the same words again ";
  EXPECT_GT(compression_ratio(repeated), 10.0);
  EXPECT_LT(compression_ratio("And so my fellow Americans"), 1.5);
}

}  // namespace
}  // namespace auris
