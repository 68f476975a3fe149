#include "tokenizer/utf8.h"

#include <gtest/gtest.h>

#include "tokenizer/test_tokenizers.h"

namespace auris {
namespace {

std::string from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return out;
}

TEST(Utf8Test, ReplacesLikePythonDecodeWithErrorsReplace) {
  const nlohmann::json cases = test::read_tokenizer_fixture("utf8_replace.json");
  ASSERT_GT(cases.size(), 30u);
  for (const auto& c : cases) {
    const std::string bytes = from_hex(c["bytes_hex"].get<std::string>());
    const std::string expected = c["text"].get<std::string>();
    EXPECT_EQ(utf8_replace_invalid(bytes), expected) << "bytes " << c["bytes_hex"];
    EXPECT_EQ(is_valid_utf8(bytes), expected == bytes) << "bytes " << c["bytes_hex"];
  }
}

TEST(Utf8Test, OneReplacementPerMaximalSubpart) {
  // A character cut after two of its three bytes is one unit; a stray continuation byte is another.
  EXPECT_EQ(utf8_replace_invalid("a\xE3\x81" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(utf8_replace_invalid("\x80\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(utf8_replace_invalid("\xE3\x81\x8B"), "\xE3\x81\x8B");
}

}  // namespace
}  // namespace auris
