#include "tokenizer/bpe.h"

#include <gtest/gtest.h>

#include "auris/error.h"
#include "tokenizer/test_tokenizers.h"

namespace auris {
namespace {

using Pieces = std::vector<std::string_view>;

TEST(PretokenizeTest, SplitsContractionsWordsNumbersAndPunctuation) {
  EXPECT_EQ(whisper_pretokenize("I'm here, they'll go"),
            (Pieces{"I", "'m", " here", ",", " they", "'ll", " go"}));
  EXPECT_EQ(whisper_pretokenize("abc 123 $5!?"), (Pieces{"abc", " 123", " $", "5", "!?"}));
  EXPECT_EQ(whisper_pretokenize("Grüße 日本"), (Pieces{"Grüße", " 日本"}));
}

TEST(PretokenizeTest, WhitespaceRunsLeaveTheirLastSpaceToTheNextWord) {
  EXPECT_EQ(whisper_pretokenize("a   b"), (Pieces{"a", "  ", " b"}));
  // \s+(?!\S) backs off one character before a word; the lone rest is matched by \s+.
  EXPECT_EQ(whisper_pretokenize("a\n\nb"), (Pieces{"a", "\n", "\n", "b"}));
  EXPECT_EQ(whisper_pretokenize("a\n\n"), (Pieces{"a", "\n\n"}));
  EXPECT_EQ(whisper_pretokenize("end  "), (Pieces{"end", "  "}));
  EXPECT_EQ(whisper_pretokenize(""), Pieces{});
}

TEST(PretokenizeTest, UsesUnicodeWhiteSpace) {
  // U+0085 is White_Space (separate from the '!'); U+180E is not (joins the punctuation run).
  EXPECT_EQ(whisper_pretokenize("!\u0085"), (Pieces{"!", "\u0085"}));
  EXPECT_EQ(whisper_pretokenize("!\u180e"), (Pieces{"!\u180e"}));
}

TEST(PretokenizeTest, RejectsInvalidUtf8) {
  EXPECT_THROW(whisper_pretokenize("ab\xC3"), Error);
  EXPECT_THROW(whisper_pretokenize("\xFF"), Error);
}

// A toy vocabulary: every byte is a token (rank = byte value), then the given merges.
BytePairEncoder toy_encoder(const std::vector<std::string>& extra) {
  std::vector<std::string> tokens;
  for (int b = 0; b < 256; ++b) tokens.emplace_back(1, static_cast<char>(b));
  tokens.insert(tokens.end(), extra.begin(), extra.end());
  return BytePairEncoder(tokens);
}

TEST(BytePairEncoderTest, MergesLowestRankFirst) {
  // "bc" (256) outranks "ab" (257): "abc" -> "a" + "bc", though "ab" comes first.
  const BytePairEncoder bpe = toy_encoder({"bc", "ab", "abcd"});
  std::vector<int> out;
  bpe.encode_piece("abc", out);
  EXPECT_EQ(out, (std::vector<int>{'a', 256}));
  out.clear();
  bpe.encode_piece("abcd", out);  // a whole piece that is a token is taken directly
  EXPECT_EQ(out, (std::vector<int>{258}));
  out.clear();
  bpe.encode_piece("xabc", out);
  EXPECT_EQ(out, (std::vector<int>{'x', 'a', 256}));
}

TEST(BytePairEncoderTest, MergesAnyAdjacentPartsWhoseBytesAreAToken) {
  // tiktoken has no merge list: "aa"+"aa" merges because "aaaa" is a token. Ties go leftmost.
  const BytePairEncoder bpe = toy_encoder({"aa", "aaaa"});
  std::vector<int> out;
  bpe.encode_piece("aaaaa", out);
  EXPECT_EQ(out, (std::vector<int>{257, 'a'}));
  out.clear();
  bpe.encode_piece("aaa", out);
  EXPECT_EQ(out, (std::vector<int>{256, 'a'}));
}

TEST(BytePairEncoderTest, RejectsVocabulariesThatCannotEncodeEveryByte) {
  EXPECT_THROW(BytePairEncoder(std::vector<std::string>{"a", "b"}), Error);
  EXPECT_THROW(toy_encoder({"ab", "ab"}), Error);
  EXPECT_NO_THROW(toy_encoder({""}));  // multilingual.tiktoken has one
}

// Every corpus text encodes to openai's ids, with both vocabularies.
TEST(BytePairEncoderTest, EncodesCorpusLikeTiktoken) {
  AURIS_REQUIRE_SHARED_DATA(data);
  for (const char* name : {"gpt2_99.json", "multilingual_99.json"}) {
    const nlohmann::json ref = test::read_tokenizer_fixture(name);
    const std::string encoding = ref["encoding"] == "gpt2.tiktoken" ? "gpt2" : "multilingual";
    const BytePairEncoder bpe(test::tiktoken_vocab(data, encoding));
    ASSERT_GE(ref["encode"].size(), 60u);
    for (const auto& item : ref["encode"]) {
      const std::string text = item["text"];
      EXPECT_EQ(bpe.encode(text), item["ids"].get<std::vector<int>>()) << name << ": " << text;
    }
  }
}

}  // namespace
}  // namespace auris
