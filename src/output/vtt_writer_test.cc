#include "output/vtt_writer.h"

#include <gtest/gtest.h>

#include "output/output_fixtures_for_tests.h"

namespace auris::output {
namespace {

TEST(OutputVttWriter, MatchesOpenaiWriteVttForEveryOptionCombination) {
  EXPECT_GT(test::expect_subtitles_match("vtt", format_vtt), 300);
}

}  // namespace
}  // namespace auris::output
