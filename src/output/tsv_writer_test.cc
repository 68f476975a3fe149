#include "output/tsv_writer.h"

#include <gtest/gtest.h>

#include "auris/error.h"
#include "output/output_fixtures_for_tests.h"

namespace auris::output {
namespace {

TEST(OutputTsvWriter, MatchesOpenaiWriteTsv) {
  for (const std::string& name : test::output_fixture_names()) {
    const auto fixture = test::output_results_fixture(name);
    EXPECT_EQ(format_tsv(test::transcript_from_fixture(fixture["result"])), fixture["tsv"].get<std::string>())
        << name;
  }
}

TEST(OutputTsvWriter, NonFiniteTimeIsAnError) {
  Transcript t;
  t.segments.push_back(test::text_segment(" x", 0.0, std::numeric_limits<double>::infinity()));
  EXPECT_THROW(format_tsv(t), Error);
}

}  // namespace
}  // namespace auris::output
