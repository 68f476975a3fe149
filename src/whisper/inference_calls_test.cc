#include "whisper/inference_calls.h"

#include <gtest/gtest.h>

#include "auris/error.h"

namespace auris {
namespace {

TEST(InferenceCalls, PrefillAsksForTheLastPositionThenTheExtraOnes) {
  const std::vector<std::vector<int>> rows = {{1, 2, 3}, {1, 2, 3}};
  std::vector<float> extra_out;
  const PrefillCall with_extra = prefill_call(rows, {0, 1}, &extra_out);
  EXPECT_EQ(with_extra.rows, 2);
  EXPECT_EQ(with_extra.logit_positions, (std::vector<int>{2, 0, 1}));
  EXPECT_TRUE(with_extra.extra);

  const PrefillCall without = prefill_call(rows, {0}, nullptr);
  EXPECT_EQ(without.logit_positions, (std::vector<int>{2}));
  EXPECT_FALSE(without.extra);
  EXPECT_THROW(prefill_call(rows, {3}, &extra_out), Error);
}

TEST(InferenceCalls, PrefillRejectsRowsWithDifferentPrompts) {
  EXPECT_THROW(prefill_call({{1, 2}, {1, 3}}, {}, nullptr), Error);
  EXPECT_THROW(prefill_call({}, {}, nullptr), Error);
  EXPECT_THROW(prefill_call({{}}, {}, nullptr), Error);
}

TEST(InferenceCalls, StepTakesEachRowsNewestTokenAndNeedsExactlyOneMore) {
  EXPECT_EQ(step_tokens({{1, 2, 7}, {1, 2, 9}}, 2), (std::vector<int>{7, 9}));
  EXPECT_THROW(step_tokens({{1, 2, 7}, {1, 2}}, 2), Error);
  EXPECT_THROW(step_tokens({}, 2), Error);
}

TEST(InferenceCalls, PrefillLogitsBecomeEveryRowsAndTheExtraOnesAreWrittenOnce) {
  const std::vector<std::vector<int>> rows(3, std::vector<int>{5, 6, 7});
  std::vector<float> extra_out;
  const PrefillCall call = prefill_call(rows, {0, 1}, &extra_out);
  const std::vector<float> prefill = {1, 2, 3, 4, 5, 6};  // three positions, n_vocab 2: last, then the extra ones
  std::vector<float> logits_out;
  replicate_prefill_logits(call, prefill, 2, logits_out, &extra_out);
  EXPECT_EQ(logits_out, (std::vector<float>{1, 2, 1, 2, 1, 2}));
  EXPECT_EQ(extra_out, (std::vector<float>{3, 4, 5, 6}));
}

}  // namespace
}  // namespace auris
