#include "tokenizer/tiktoken_file.h"

#include <gtest/gtest.h>

#include "auris/error.h"
#include "test_support.h"

namespace auris {
namespace {

TEST(TiktokenFileTest, ParsesBase64TokensByRank) {
  // "IQ==" = "!", "aGk=" = "hi", "IHRoZQ==" = " the"; ranks may come in any order.
  const auto tokens = parse_tiktoken_ranks("aGk= 1\nIQ== 0\r\n\nIHRoZQ== 2\n", "test");
  EXPECT_EQ(tokens, (std::vector<std::string>{"!", "hi", " the"}));
  EXPECT_EQ(parse_tiktoken_ranks("= 0\nIQ 1\n", "t"), (std::vector<std::string>{"", "!"}));
}

TEST(TiktokenFileTest, RejectsMalformedFiles) {
  EXPECT_THROW(parse_tiktoken_ranks("", "t"), Error);
  EXPECT_THROW(parse_tiktoken_ranks("IQ==\n", "t"), Error);           // no rank
  EXPECT_THROW(parse_tiktoken_ranks("I*== 0\n", "t"), Error);         // bad base64
  EXPECT_THROW(parse_tiktoken_ranks("IQ==I 0\n", "t"), Error);        // '=' inside
  EXPECT_THROW(parse_tiktoken_ranks("IQ==A 0\n", "t"), Error);
  EXPECT_THROW(parse_tiktoken_ranks("IQA 0\nA 1\n", "t"), Error);    // 1 char: no byte
  EXPECT_THROW(parse_tiktoken_ranks("IQ== x\n", "t"), Error);         // rank not a number
  EXPECT_THROW(parse_tiktoken_ranks("IQ== -1\n", "t"), Error);
  EXPECT_THROW(parse_tiktoken_ranks("IQ== 0\naGk= 0\n", "t"), Error); // rank twice
  EXPECT_THROW(parse_tiktoken_ranks("IQ== 1\n", "t"), Error);         // gap at rank 0
  EXPECT_THROW(read_tiktoken_file(test::temp_dir() + "/missing.tiktoken"), Error);
}

TEST(TiktokenFileTest, ErrorNamesTheLine) {
  try {
    parse_tiktoken_ranks("IQ== 0\nbroken\n", "my.tiktoken");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("my.tiktoken line 2"), std::string::npos) << e.what();
  }
}

TEST(TiktokenFileTest, ReadsWhisperVocabularies) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const auto gpt2 = read_tiktoken_file(data + "/tokenizer/gpt2.tiktoken");
  const auto multilingual = read_tiktoken_file(data + "/tokenizer/multilingual.tiktoken");
  EXPECT_EQ(gpt2.size(), 50256u);
  EXPECT_EQ(multilingual.size(), 50257u);
  EXPECT_EQ(gpt2[0], "!");
  EXPECT_EQ(gpt2[262], " the");
  EXPECT_EQ(multilingual[50256], "");  // an unused, empty regular token  // as in every GPT-2 vocabulary
}

}  // namespace
}  // namespace auris
