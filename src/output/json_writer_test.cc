#include "output/json_writer.h"

#include <gtest/gtest.h>

#include "output/output_fixtures_for_tests.h"

namespace auris::output {
namespace {

TEST(OutputJsonWriter, MatchesOpenaiWriteJsonByteForByte) {
  for (const std::string& name : test::output_fixture_names()) {
    const auto fixture = test::output_results_fixture(name);
    EXPECT_EQ(format_json(test::transcript_from_fixture(fixture["result"])), fixture["json"].get<std::string>())
        << name;
  }
}

TEST(OutputJsonWriter, EscapesLikePythonEnsureAscii) {
  // Expected strings are what Python's json.dumps gives for these (ensure_ascii=True).
  EXPECT_EQ(json_string("a\"b\\c/d"), R"("a\"b\\c/d")");
  EXPECT_EQ(json_string("\b\f\n\r\t\x01\x1f\x7f"), R"("\b\f\n\r\t\u0001\u001f\u007f")");
  EXPECT_EQ(json_string("\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80"), R"("\u00e9\u65e5\ud83d\ude00")");
  EXPECT_EQ(json_string(""), R"("")");
}

TEST(OutputJsonWriter, WordsKeyOnEverySegmentOnlyWhenTimed) {
  Transcript t;
  t.language = "en";
  t.segments.push_back(test::text_segment(" a"));
  t.segments.push_back(test::text_segment("", 0.0, 0.0, 1));
  EXPECT_EQ(format_json(t).find("\"words\""), std::string::npos);
  t.segments[0].words.push_back({" a", 0.0, 1.0, 0.5});
  const std::string json = format_json(t);
  EXPECT_NE(json.find("\"words\": [{\"word\": \" a\", \"start\": 0.0, \"end\": 1.0, \"probability\": 0.5}]"),
            std::string::npos);
  EXPECT_NE(json.find("\"no_speech_prob\": 0.0, \"words\": []}"), std::string::npos);
}

}  // namespace
}  // namespace auris::output
