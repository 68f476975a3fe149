#include "stream/committed_tokens.h"

#include <gtest/gtest.h>

#include <memory>

#include "test_support.h"

namespace auris {
namespace {

class CommittedTokens : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string data = test::shared_data_dir();
    if (data.empty()) GTEST_SKIP() << "../shared/data not found (set AURIS_TEST_DATA to the test data)";
    tokenizer_ = std::make_unique<Tokenizer>(Tokenizer::from_tiktoken_file(data + "/tokenizer/gpt2.tiktoken", 99));
  }

  int timestamp(double seconds) const { return tokenizer_->timestamp_begin() + static_cast<int>(seconds / 0.02 + 0.5); }
  std::vector<int> text(const std::string& s) const { return tokenizer_->encode(s); }

  // A segment of the first window: its timestamps around the words' tokens, as a decode gives it.
  Segment segment(double start, double end, const std::vector<std::string>& words) const {
    Segment s;
    s.start = start;
    s.end = end;
    s.tokens.push_back(timestamp(start));
    for (const std::string& w : words) {
      const std::vector<int> t = text(w);
      s.tokens.insert(s.tokens.end(), t.begin(), t.end());
      s.words.push_back({w, start, end, 0.9});
      s.text += w;
    }
    s.tokens.push_back(timestamp(end));
    return s;
  }

  static std::vector<int> concat(std::initializer_list<std::vector<int>> parts) {
    std::vector<int> out;
    for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
  }

  std::unique_ptr<Tokenizer> tokenizer_;
};

TEST_F(CommittedTokens, TheFirstWindowsTokensThroughTheWordTimestampsIncluded) {
  const std::vector<Segment> segments = {segment(0.0, 1.0, {" Hello,", " world."}),
                                         segment(1.0, 2.5, {" This", " isn't", " fine"})};
  // Through "isn't": the whole first segment, the second's start and its first two words.
  EXPECT_EQ(tokens_through_word(segments, 1, 1, *tokenizer_),
            concat({segments[0].tokens, {timestamp(1.0)}, text(" This isn't")}));
  // Through the first segment's last word: not its closing timestamp, which the next decode decides.
  EXPECT_EQ(tokens_through_word(segments, 0, 1, *tokenizer_), concat({{timestamp(0.0)}, text(" Hello, world.")}));
  EXPECT_EQ(tokens_through_word(segments, 0, 0, *tokenizer_), concat({{timestamp(0.0)}, text(" Hello,")}));
}

TEST_F(CommittedTokens, NoneWhereTheTokensCannotBeRecovered) {
  std::vector<Segment> segments = {segment(0.0, 1.0, {" Hello,", " world."}), segment(1.0, 2.0, {" Again"})};
  EXPECT_TRUE(tokens_through_word(segments, 2, 0, *tokenizer_).empty());  // no such segment
  EXPECT_TRUE(tokens_through_word(segments, 1, 1, *tokenizer_).empty());  // no such word

  std::vector<Segment> second_window = segments;
  second_window[1].seek = 1500;  // decoded in a later window
  EXPECT_TRUE(tokens_through_word(second_window, 1, 0, *tokenizer_).empty());
  EXPECT_FALSE(tokens_through_word(second_window, 0, 1, *tokenizer_).empty());

  std::vector<Segment> cleared = segments;
  cleared[0].tokens.clear();  // an instantaneous segment's tokens are dropped
  EXPECT_TRUE(tokens_through_word(cleared, 1, 0, *tokenizer_).empty());

  std::vector<Segment> respelled = segments;
  respelled[0].words[0].word = " Hell";  // the words no longer split the tokens where they end
  EXPECT_TRUE(tokens_through_word(respelled, 0, 0, *tokenizer_).empty());
}

}  // namespace
}  // namespace auris
