#include "output/txt_writer.h"

#include <gtest/gtest.h>

#include "output/output_fixtures_for_tests.h"

namespace auris::output {
namespace {

TEST(OutputTxtWriter, MatchesOpenaiWriteTxt) {
  for (const std::string& name : test::output_fixture_names()) {
    const auto fixture = test::output_results_fixture(name);
    EXPECT_EQ(format_txt(test::transcript_from_fixture(fixture["result"])), fixture["txt"].get<std::string>())
        << name;
  }
}

TEST(OutputTxtWriter, StripsUnicodeWhitespaceButKeepsInnerSpaces) {
  Transcript t;
  t.segments.push_back(test::text_segment("\xE3\x80\x80 a  b\xC2\xA0\n"));
  EXPECT_EQ(format_txt(t), "a  b\n");
}

}  // namespace
}  // namespace auris::output
