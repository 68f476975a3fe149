#include "tokenizer/bpe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <random>
#include <set>
#include <unordered_map>

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

// tiktoken's encoding of a piece as it is written: the piece's own token if it is one, else its
// merge loop, which scans every part for the lowest-ranked pair, the leftmost of equal ranks, and
// merges it. The encoder must give its tokens.
std::vector<int> scan_merges(const std::vector<std::string>& tokens, std::string_view piece) {
  std::unordered_map<std::string, int> ranks;
  for (size_t i = 0; i < tokens.size(); ++i) ranks.emplace(tokens[i], static_cast<int>(i));
  const auto rank_of = [&](const std::string& bytes) {
    const auto it = ranks.find(bytes);
    return it == ranks.end() ? INT_MAX : it->second;
  };
  if (const int whole = rank_of(std::string(piece)); whole != INT_MAX) return {whole};
  std::vector<std::string> parts;
  for (const char c : piece) parts.emplace_back(1, c);
  for (;;) {
    int best = INT_MAX;
    size_t at = 0;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      if (const int r = rank_of(parts[i] + parts[i + 1]); r < best) {
        best = r;
        at = i;
      }
    }
    if (best == INT_MAX) break;
    parts[at] += parts[at + 1];
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  }
  std::vector<int> ids;
  for (const auto& part : parts) ids.push_back(rank_of(part));
  return ids;
}

TEST(BytePairEncoderTest, MergesAsTiktokensScanOnRandomVocabularies) {
  std::mt19937 random(7);
  for (int vocabulary = 0; vocabulary < 20; ++vocabulary) {
    // Every byte, then random strings over "abc" in a random order: many ties and chains.
    std::vector<std::string> tokens;
    for (int b = 0; b < 256; ++b) tokens.emplace_back(1, static_cast<char>(b));
    std::set<std::string> extra;
    while (extra.size() < 40) {
      std::string token(2 + random() % 5, 'a');
      for (char& c : token) c = static_cast<char>('a' + random() % 3);
      extra.insert(token);
    }
    std::vector<std::string> shuffled(extra.begin(), extra.end());
    std::shuffle(shuffled.begin(), shuffled.end(), random);
    tokens.insert(tokens.end(), shuffled.begin(), shuffled.end());
    const BytePairEncoder bpe(tokens);
    for (int text = 0; text < 100; ++text) {
      std::string piece(1 + random() % 40, 'a');
      for (char& c : piece) c = static_cast<char>('a' + random() % 3);
      std::vector<int> out;
      bpe.encode_piece(piece, out);
      ASSERT_EQ(out, scan_merges(tokens, piece)) << piece;
    }
  }
}

TEST(BytePairEncoderTest, EncodesAVeryLongWordAndGivesItsBytesBack) {
  // One "word" of 300,000 letters, as a pasted prompt can hold: the merges must not take
  // quadratic time (they took minutes), and the tokens must spell the word.
  AURIS_REQUIRE_SHARED_DATA(data);
  const auto& vocab = test::tiktoken_vocab(data, "gpt2");
  const BytePairEncoder bpe(vocab);
  std::mt19937 random(3);
  std::string word(300'000, 'a');
  for (char& c : word) c = static_cast<char>('a' + random() % 26);
  std::vector<int> out;
  bpe.encode_piece(word, out);
  std::string spelled;
  for (const int id : out) spelled += vocab.at(static_cast<size_t>(id));
  EXPECT_EQ(spelled, word);
  // Its first 2,000 letters as the scan merges them (the scan is too slow for the whole word).
  std::vector<int> head;
  bpe.encode_piece(std::string_view(word).substr(0, 2000), head);
  EXPECT_EQ(head, scan_merges(vocab, std::string_view(word).substr(0, 2000)));
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
