#include "output/srt_writer.h"

#include <gtest/gtest.h>

#include "output/output_fixtures_for_tests.h"

namespace auris::output {
namespace {

TEST(OutputSrtWriter, MatchesOpenaiWriteSrtForEveryOptionCombination) {
  EXPECT_GT(test::expect_subtitles_match("srt", format_srt), 300);
}

}  // namespace
}  // namespace auris::output
