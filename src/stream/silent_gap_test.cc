#include "stream/silent_gap.h"

#include <gtest/gtest.h>

#include <string>

namespace auris {
namespace {

Word word(double start, double end, double probability = 0.0) {
  Word w;
  w.start = start;
  w.end = end;
  w.probability = probability;
  return w;
}

// The case it was written for (tiny.en, the long-form file, --vad): "consequences." (83.61-84.25 s)
// closed the utterance, the VAD heard speech again at 85.56 s, and the next decodes said "axis."
// (84.25-84.79 s, probability 0.00) between the two, then "Here" (85.55-85.95 s).
TEST(SilentGap, HoldsAWordPlacedInTheSilence) {
  const SilentGap gap{84.25, 85.56};
  EXPECT_TRUE(gap.holds(word(84.25, 84.79)));
  EXPECT_FALSE(gap.holds(word(83.61, 84.25)));
  EXPECT_FALSE(gap.holds(word(85.55, 85.95)));
}

// The closed utterance's last word timed a little later by another decode, and a first word that
// starts well before the VAD's start but ends after it, are speech.
TEST(SilentGap, WordsThatReachEitherSideAreSpeech) {
  const SilentGap gap{84.25, 85.56};
  EXPECT_FALSE(gap.holds(word(83.70, 84.40)));
  EXPECT_FALSE(gap.holds(word(85.00, 85.60)));
  EXPECT_TRUE(gap.holds(word(84.30, 85.56)));
}

// A probable word in the gap is speech that this decode's alignment placed early.
TEST(SilentGap, ProbableWordsAreSpeech) {
  const SilentGap gap{84.25, 85.56};
  EXPECT_FALSE(gap.holds(word(84.40, 84.90, 0.9)));
  EXPECT_FALSE(gap.holds(word(84.40, 84.90, 0.15)));
  EXPECT_TRUE(gap.holds(word(84.40, 84.90, 0.14)));
}

}  // namespace
}  // namespace auris
