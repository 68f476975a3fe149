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

TEST(BoundedJson, RefusesMalformedTextAsNlohmannDoes) {
  EXPECT_THROW(parse_bounded_json("{oops"), nlohmann::json::parse_error);
  EXPECT_THROW(parse_bounded_json(""), nlohmann::json::parse_error);
  EXPECT_THROW(parse_bounded_json("[1] trailing"), nlohmann::json::parse_error);
}

}  // namespace
}  // namespace auris
