#include "text/python_regex.h"

#include <gtest/gtest.h>

namespace auris {
namespace {

// Python's \w is letters, numbers and "_"; a combining mark is not a word character, so a word
// boundary falls between "e" and U+0301 (PCRE2 10.43+ would say otherwise).
TEST(PythonRegex, WordBoundaryFollowsPython) {
  const PythonRegex word_e(R"(\be\b)");
  EXPECT_EQ(word_e.sub("e\u0301 é e_ e", "X"), "X\u0301 é e_ X");
  EXPECT_EQ(PythonRegex(R"(\bst\b)").sub("st. 1st st", "saint"), "saint. 1st saint");
}

// Python's \s includes the information separators U+001C..U+001F; not U+200B.
TEST(PythonRegex, WhitespaceFollowsPython) {
  EXPECT_EQ(PythonRegex(R"(\s+)").sub("a\x1c\u3000b\u200bc", " "), "a b\u200bc");
}

// re.sub(r"x*", "-", "abxd") == "-a-b--d-" since Python 3.7.
TEST(PythonRegex, EmptyMatchesFollowPython) {
  EXPECT_EQ(PythonRegex("x*").sub("abxd", "-"), "-a-b--d-");
  EXPECT_EQ(PythonRegex("x*").sub("é", "-"), "-é-");
}

TEST(PythonRegex, TemplatesSplitsAndUnsetGroups) {
  EXPECT_EQ(PythonRegex(R"(\.([^0-9]|$))").sub("a. b.", R"( \1)"), "a  b ");
  EXPECT_EQ(PythonRegex(R"(\band\s+a\s+half\b)").split("two and a half and  a halfway"),
            (std::vector<std::string>{"two ", " and  a halfway"}));
  EXPECT_TRUE(PythonRegex(R"(^\d+(\.\d+)?$)").matches_at_start("١٢.٥"));
  EXPECT_FALSE(PythonRegex(R"(^\d+(\.\d+)?$)").matches_at_start("12."));
}

}  // namespace
}  // namespace auris
