#include "stream/local_agreement.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace auris {
namespace {

// Words " w0", " w1", ... a second each from `start`, named by the given texts.
std::vector<Word> words(std::vector<std::string> texts, double start = 0.0) {
  std::vector<Word> out;
  for (const std::string& t : texts) {
    out.push_back({" " + t, start, start + 1.0, 0.9});
    start += 1.0;
  }
  return out;
}

std::vector<std::string> texts(const std::vector<Word>& ws) {
  std::vector<std::string> out;
  for (const Word& w : ws) out.push_back(w.word.substr(1));
  return out;
}

using Texts = std::vector<std::string>;

TEST(LocalAgreement, CommitsWhatTwoHypothesesAgreeOn) {
  LocalAgreement agreement;
  EXPECT_TRUE(agreement.insert(words({"the", "cat"})).empty());  // one hypothesis decides nothing
  EXPECT_EQ(texts(agreement.tentative()), (Texts{"the", "cat"}));
  EXPECT_EQ(texts(agreement.insert(words({"the", "cat", "sat", "on"}))), (Texts{"the", "cat"}));
  EXPECT_EQ(texts(agreement.tentative()), (Texts{"sat", "on"}));
  EXPECT_DOUBLE_EQ(agreement.last_committed_end(), 2.0);
  // "sat" agreed, "on" changed to "upon": only "sat" is committed.
  EXPECT_EQ(texts(agreement.insert(words({"the", "cat", "sat", "upon", "the"}))), (Texts{"sat"}));
  EXPECT_EQ(texts(agreement.tentative()), (Texts{"upon", "the"}));
}

// How many of the last hypothesis's words are committed: what a re-decode may force.
TEST(LocalAgreement, CountsTheCommittedWordsOfTheLastHypothesis) {
  LocalAgreement agreement;
  agreement.insert(words({"the", "cat"}));
  EXPECT_EQ(agreement.committed_words_in_last(), 0u);
  agreement.insert(words({"the", "cat", "sat", "on"}));
  EXPECT_EQ(agreement.committed_words_in_last(), 2u);
  agreement.insert(words({"the", "cat", "sat", "upon", "the"}));  // repeats "the cat", commits "sat"
  EXPECT_EQ(agreement.committed_words_in_last(), 3u);
  agreement.insert(words({"the", "cat", "sat", "under", "a"}));  // commits nothing more
  EXPECT_EQ(agreement.committed_words_in_last(), 3u);
  agreement.commit_tentative();
  EXPECT_EQ(agreement.committed_words_in_last(), 5u);
}

TEST(LocalAgreement, NothingIsCommittedWhileHypothesesDisagree) {
  LocalAgreement agreement;
  agreement.insert(words({"a", "b"}));
  EXPECT_TRUE(agreement.insert(words({"c", "b"})).empty());
  EXPECT_TRUE(agreement.insert(words({"a", "b"})).empty());
  EXPECT_DOUBLE_EQ(agreement.last_committed_end(), 0.0);
}

TEST(LocalAgreement, PunctuationAndCaseDoNotMakeAnotherWord) {
  LocalAgreement agreement;
  agreement.insert(words({"Hello", "world."}));
  EXPECT_EQ(texts(agreement.insert(words({"hello,", "world!", "again"}))), (Texts{"hello,", "world!"}));
  agreement.insert(words({"hello,", "world!", "again", "now"}, 0.0));  // commits "again"
  // A decode that punctuates the committed words otherwise does not commit them twice.
  EXPECT_EQ(texts(agreement.insert(words({"Hello", "world", "again.", "now", "then"}))), (Texts{"now"}));
  EXPECT_EQ(texts(agreement.insert(words({"a", "b"}))), Texts{});  // letters still count
}

TEST(LocalAgreement, CommittedWordsAreNotCommittedAgainAfterTheBufferIsCut) {
  LocalAgreement agreement;
  agreement.insert(words({"one", "two", "three"}));
  agreement.insert(words({"one", "two", "three", "four"}));  // commits one two three (ends at 3 s)
  agreement.forget_committed_before(2.0);                    // the buffer now starts at 2 s
  // The decode of the cut buffer hears "three" again, timed a little early: it repeats the committed
  // tail and is dropped; "four", which the last hypothesis also had, is committed.
  EXPECT_EQ(texts(agreement.insert(words({"three", "four", "five"}, 2.95))), (Texts{"four"}));
  EXPECT_EQ(texts(agreement.tentative()), (Texts{"five"}));
  EXPECT_EQ(texts(agreement.insert(words({"three", "four", "five", "six"}, 2.95))), (Texts{"five"}));
}

TEST(LocalAgreement, AWordTimedEarlierByTheNextDecodeIsNotLost) {
  LocalAgreement agreement;
  agreement.insert(words({"ask", "not", "what"}, 2.0));
  agreement.insert(words({"ask", "not", "what"}, 2.0));  // all committed: "what" ends at 5 s
  // The next decode times the same words 0.4 s earlier, then goes on: "your country" are new,
  // though "your" starts before the committed end.
  agreement.insert(words({"ask", "not", "what", "your", "country"}, 1.6));
  EXPECT_EQ(texts(agreement.tentative()), (Texts{"your", "country"}));
  EXPECT_EQ(texts(agreement.insert(words({"ask", "not", "what", "your", "country"}, 1.6))), (Texts{"your", "country"}));
}

TEST(LocalAgreement, WordsBeforeTheCommittedEndAreIgnored) {
  LocalAgreement agreement;
  agreement.insert(words({"a", "b", "c"}));
  agreement.insert(words({"a", "b", "c"}));  // all three committed, up to 3 s
  // A hypothesis whose first words lie before 2.9 s cannot change what is committed.
  EXPECT_TRUE(agreement.insert(words({"x", "y", "c", "d"})).empty());
  EXPECT_EQ(texts(agreement.tentative()), (Texts{"d"}));
}

TEST(LocalAgreement, CommitTentativeCommitsTheRest) {
  LocalAgreement agreement;
  agreement.insert(words({"last", "words"}));
  EXPECT_EQ(texts(agreement.commit_tentative()), (Texts{"last", "words"}));
  EXPECT_TRUE(agreement.tentative().empty());
  EXPECT_DOUBLE_EQ(agreement.last_committed_end(), 2.0);
}

}  // namespace
}  // namespace auris
