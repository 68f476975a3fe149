#include "tokenizer/languages.h"

#include <gtest/gtest.h>

#include "tokenizer/test_tokenizers.h"

namespace auris {
namespace {

TEST(LanguagesTest, TableMatchesOpenaiInOrder) {
  const nlohmann::json ref = test::read_tokenizer_fixture("languages.json");
  const auto languages = whisper_languages();
  ASSERT_EQ(languages.size(), ref["languages"].size());
  for (size_t i = 0; i < languages.size(); ++i) {
    EXPECT_EQ(languages[i].code, ref["languages"][i][0].get<std::string>()) << i;
    EXPECT_EQ(languages[i].name, ref["languages"][i][1].get<std::string>()) << i;
  }
}

TEST(LanguagesTest, ResolvesEveryCodeNameAndAliasCaseInsensitively) {
  const nlohmann::json ref = test::read_tokenizer_fixture("languages.json");
  for (const auto& [name, code] : ref["to_language_code"].items()) {
    EXPECT_EQ(to_language_code(name), code.get<std::string>()) << name;
    std::string upper = name;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(to_language_code(upper), code.get<std::string>()) << upper;
  }
  for (const auto& entry : ref["languages"]) {
    const std::string code = entry[0];
    EXPECT_EQ(to_language_code(code), code);
  }
  EXPECT_EQ(to_language_code("klingon"), std::nullopt);
  EXPECT_EQ(to_language_code(""), std::nullopt);
}

}  // namespace
}  // namespace auris
