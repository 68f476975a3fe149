#include "util/bounded_json.h"

#include <gtest/gtest.h>

#include <string>

namespace auris {
namespace {

std::string nested(int depth) { return std::string(depth, '[') + "1" + std::string(depth, ']'); }

TEST(BoundedJson, ParsesAsNlohmannDoesUpToTheBound) {
  const std::string text = R"({"a": [1, 2.5, "x", null, {"b": true}], "c": {}})";
  EXPECT_EQ(parse_bounded_json(text), nlohmann::json::parse(text));
  EXPECT_EQ(parse_bounded_json(nested(kMaxJsonDepth)).dump(), nested(kMaxJsonDepth));
}

TEST(BoundedJson, RefusesDeeperNestingAsAParseError) {
  for (const std::string& text : {nested(kMaxJsonDepth + 1), "{\"a\": " + nested(kMaxJsonDepth) + "}", nested(1000000)}) {
    try {
      parse_bounded_json(text);
      ADD_FAILURE() << "parsed " << text.size() << " bytes";
    } catch (const nlohmann::json::parse_error& e) {
      EXPECT_NE(std::string(e.what()).find("nested deeper than 64 levels"), std::string::npos) << e.what();
    }
  }
}

TEST(BoundedJson, CountsEveryValueAgainstTheBoundOnValues) {
  const std::string text = R"({"a": [1, 2, {"b": null}], "c": "x"})";  // 7 values, the outer object too
  EXPECT_EQ(parse_bounded_json(text, 7), nlohmann::json::parse(text));
  try {
    parse_bounded_json(text, 6);
    ADD_FAILURE() << "parsed";
  } catch (const nlohmann::json::parse_error& e) {
    EXPECT_NE(std::string(e.what()).find("more than 6 values"), std::string::npos) << e.what();
  }
  std::string zeros = "[0";
  for (int i = 1; i < 1000000; ++i) zeros += ",0";
  EXPECT_THROW(parse_bounded_json(zeros + "]", 4096), nlohmann::json::parse_error);
  EXPECT_EQ(parse_bounded_json(zeros + "]").size(), 1000000u);
}

TEST(BoundedJson, RefusesMalformedTextAsNlohmannDoes) {
  EXPECT_THROW(parse_bounded_json("{oops"), nlohmann::json::parse_error);
  EXPECT_THROW(parse_bounded_json(""), nlohmann::json::parse_error);
  EXPECT_THROW(parse_bounded_json("[1] trailing"), nlohmann::json::parse_error);
}

}  // namespace
}  // namespace auris
