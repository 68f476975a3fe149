#include "tokenizer/tokenizer.h"

#include <gtest/gtest.h>

#include "auris/error.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/test_tokenizers.h"
#include "util/mapped_file.h"

namespace auris {
namespace {

// One reference configuration per Whisper model family: gpt2 (English-only), multilingual with
// 99 languages (tiny..large-v2) and with 100 (large-v3).
class TokenizerReferenceTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const std::string data = test::shared_data_dir();
    if (data.empty()) GTEST_SKIP() << "../shared/data not found (set AURIS_TEST_DATA to the test data)";
    ref_ = test::read_tokenizer_fixture(GetParam());
    const std::string encoding = ref_["encoding"] == "gpt2.tiktoken" ? "gpt2" : "multilingual";
    tokenizer_.emplace(test::tiktoken_vocab(data, encoding), ref_["num_languages"].get<int>());
  }
  nlohmann::json ref_;
  std::optional<Tokenizer> tokenizer_;
};

TEST_P(TokenizerReferenceTest, SpecialTokensHaveOpenaiIdsAndText) {
  const Tokenizer& tok = *tokenizer_;
  EXPECT_EQ(tok.multilingual(), ref_["multilingual"].get<bool>());
  EXPECT_EQ(tok.n_vocab(), ref_["n_vocab"].get<int>());
  const auto& named = ref_["named"];
  EXPECT_EQ(tok.eot(), named["eot"].get<int>());
  EXPECT_EQ(tok.sot(), named["sot"].get<int>());
  EXPECT_EQ(tok.translate(), named["translate"].get<int>());
  EXPECT_EQ(tok.transcribe(), named["transcribe"].get<int>());
  EXPECT_EQ(tok.sot_lm(), named["sot_lm"].get<int>());
  EXPECT_EQ(tok.sot_prev(), named["sot_prev"].get<int>());
  EXPECT_EQ(tok.no_speech(), named["no_speech"].get<int>());
  EXPECT_EQ(tok.no_timestamps(), named["no_timestamps"].get<int>());
  EXPECT_EQ(tok.timestamp_begin(), named["timestamp_begin"].get<int>());
  ASSERT_EQ(ref_["special_tokens"].size(), static_cast<size_t>(tok.n_vocab() - tok.eot()));
  for (const auto& [text, id] : ref_["special_tokens"].items()) {
    EXPECT_EQ(tok.token_bytes(id.get<int>()), text) << id;
  }
}

TEST_P(TokenizerReferenceTest, LanguageTokens) {
  const Tokenizer& tok = *tokenizer_;
  const auto tokens = ref_["all_language_tokens"].get<std::vector<int>>();
  const auto codes = ref_["all_language_codes"].get<std::vector<std::string>>();
  EXPECT_EQ(tok.all_language_tokens(), tokens);
  EXPECT_EQ(tok.language_codes(), codes);
  for (size_t i = 0; i < tokens.size(); ++i) {
    EXPECT_EQ(tok.language_code(tokens[i]), codes[i]);
    EXPECT_EQ(tok.language_token(codes[i]), tokens[i]);
  }
  EXPECT_EQ(tok.language_token("English"), tok.sot() + 1);
  EXPECT_EQ(tok.language_token("CASTILIAN"), tok.language_token("es"));
  EXPECT_EQ(tok.language_token("klingon"), std::nullopt);
  EXPECT_EQ(tok.language_token("yue").has_value(), tok.num_languages() == 100);
  EXPECT_THROW(tok.language_code(tok.sot()), Error);
  EXPECT_THROW(tok.language_code(tok.translate()), Error);
}

TEST_P(TokenizerReferenceTest, EncodesCorpus) {
  ASSERT_GE(ref_["encode"].size(), 60u);
  for (const auto& item : ref_["encode"]) {
    const std::string text = item["text"];
    EXPECT_EQ(tokenizer_->encode(text), item["ids"].get<std::vector<int>>()) << text;
  }
}

TEST_P(TokenizerReferenceTest, SotSequences) {
  ASSERT_FALSE(ref_["sot_sequences"].empty());
  for (const auto& item : ref_["sot_sequences"]) {
    std::optional<std::string> language;
    if (!item["language"].is_null()) language = item["language"].get<std::string>();
    const Task task = item["task"] == "translate" ? Task::kTranslate : Task::kTranscribe;
    EXPECT_EQ(tokenizer_->sot_sequence(language, task), item["ids"].get<std::vector<int>>())
        << item.dump();
  }
  if (tokenizer_->multilingual()) {
    EXPECT_THROW(tokenizer_->sot_sequence("klingon", Task::kTranscribe), Error);
    if (tokenizer_->num_languages() == 99) {
      EXPECT_THROW(tokenizer_->sot_sequence("yue", Task::kTranscribe), Error);
    }
  }
}

TEST_P(TokenizerReferenceTest, NonSpeechTokens) {
  EXPECT_EQ(tokenizer_->non_speech_tokens(), ref_["non_speech_tokens"].get<std::vector<int>>());
}

TEST_P(TokenizerReferenceTest, DecodesLikeOpenai) {
  ASSERT_GE(ref_["decode"].size(), 80u);
  for (const auto& item : ref_["decode"]) {
    const auto tokens = item["tokens"].get<std::vector<int>>();
    EXPECT_EQ(tokenizer_->decode(tokens), item["text"].get<std::string>()) << item.dump();
    EXPECT_EQ(tokenizer_->decode_with_timestamps(tokens),
              item["text_with_timestamps"].get<std::string>())
        << item.dump();
  }
}

TEST_P(TokenizerReferenceTest, RejectsTokensOutsideTheVocabulary) {
  const std::vector<int> bad = {tokenizer_->n_vocab()};
  EXPECT_THROW(tokenizer_->decode(std::vector<int>{-1}), Error);
  EXPECT_THROW(tokenizer_->decode_with_timestamps(bad), Error);
  EXPECT_THROW(tokenizer_->token_bytes(tokenizer_->n_vocab()), Error);
}

INSTANTIATE_TEST_SUITE_P(Whisper, TokenizerReferenceTest,
                         ::testing::Values("gpt2_99.json", "multilingual_99.json",
                                           "multilingual_100.json"),
                         [](const auto& info) {
                           std::string name = info.param;
                           return name.substr(0, name.find('.'));
                         });

TEST(TokenizerTest, FromTiktokenFile) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const Tokenizer tok = Tokenizer::from_tiktoken_file(data + "/tokenizer/multilingual.tiktoken", 99);
  EXPECT_EQ(tok.n_vocab(), 51865);
  EXPECT_TRUE(tok.multilingual());
  EXPECT_THROW(Tokenizer::from_tiktoken_file(data + "/tokenizer/missing.tiktoken", 99), Error);
}

TEST(TokenizerTest, RejectsBadConstruction) {
  std::vector<std::string> bytes;
  for (int b = 0; b < 256; ++b) bytes.emplace_back(1, static_cast<char>(b));
  EXPECT_THROW(Tokenizer(bytes, 0), Error);
  EXPECT_THROW(Tokenizer(bytes, 101), Error);
  EXPECT_THROW(Tokenizer({"a", "b"}, 99), Error);
  EXPECT_NO_THROW(Tokenizer(bytes, 99));
}

// The model loaders hand the tokenizer the regular tokens from CTranslate2's vocabulary files,
// which store them in GPT-2's unicode form; they must equal openai's ranks exactly.
void expect_same_tokenizer(const Tokenizer& from_model, const Tokenizer& reference) {
  ASSERT_EQ(from_model.n_vocab(), reference.n_vocab());
  for (int id = 0; id < reference.n_vocab(); ++id) {
    ASSERT_EQ(from_model.token_bytes(id), reference.token_bytes(id)) << "token " << id;
  }
  EXPECT_EQ(from_model.non_speech_tokens(), reference.non_speech_tokens());
  const std::string text = "Hello, world! Grüße aus München. 日本語のテキスト 😀";
  EXPECT_EQ(from_model.encode(text), reference.encode(text));
}

TEST(TokenizerTest, CTranslate2TextVocabularyMatchesGpt2Ranks) {
  AURIS_REQUIRE_SHARED_DATA(data);
  AURIS_REQUIRE_MODEL(model, "tiny.en");
  const std::string text = read_text_file(model + "/vocabulary.txt");
  std::vector<std::string> vocab;
  for (size_t pos = 0; vocab.size() < 50256 && pos < text.size();) {
    const size_t eol = text.find('\n', pos);
    vocab.push_back(gpt2_unicode_to_bytes(std::string_view(text).substr(pos, eol - pos)));
    pos = eol == std::string::npos ? text.size() : eol + 1;
  }
  expect_same_tokenizer(Tokenizer(vocab, 99), Tokenizer(test::tiktoken_vocab(data, "gpt2"), 99));
}

TEST(TokenizerTest, CTranslate2JsonVocabularyMatchesMultilingualRanks) {
  AURIS_REQUIRE_SHARED_DATA(data);
  AURIS_REQUIRE_MODEL(model, "base");
  const auto json = nlohmann::json::parse(read_text_file(model + "/vocabulary.json"));
  ASSERT_GE(json.size(), 50257u);
  std::vector<std::string> vocab;
  for (size_t i = 0; i < 50257; ++i) vocab.push_back(gpt2_unicode_to_bytes(json[i].get<std::string>()));
  expect_same_tokenizer(Tokenizer(vocab, 99),
                        Tokenizer(test::tiktoken_vocab(data, "multilingual"), 99));
}

}  // namespace
}  // namespace auris
