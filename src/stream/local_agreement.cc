#include "stream/local_agreement.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace auris {

namespace {

// Consecutive hypotheses of one buffer repeat the committed words it still holds: up to this many
// of the latest are looked for.
constexpr size_t kMaxRepeatedWords = 5;

// Two decodes of the same speech often punctuate or capitalise a word differently ("not," and
// "not!"): words are compared by their letters and digits alone (any non-ASCII byte kept).
bool same_word(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  auto skip = [](const std::string& s, size_t& k) {
    while (k < s.size() && static_cast<unsigned char>(s[k]) < 0x80 && !std::isalnum(static_cast<unsigned char>(s[k]))) ++k;
  };
  while (true) {
    skip(a, i);
    skip(b, j);
    if (i == a.size() || j == b.size()) return i == a.size() && j == b.size();
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[j]))) return false;
    ++i;
    ++j;
  }
}

}  // namespace

// Where the committed words end in a new hypothesis: after the longest run of them (up to
// kMaxRepeatedWords) that it repeats, ending within a second of where they ended; 0 if it repeats
// none. Decodes of the same audio time a word differently by a few hundred milliseconds, so the
// words are found by their text; their times only pick the nearest of repeated phrases.
size_t LocalAgreement::after_committed(const std::vector<Word>& hypothesis) const {
  const size_t most = std::min({committed_in_buffer_.size(), hypothesis.size(), kMaxRepeatedWords});
  for (size_t n = most; n >= 1; --n) {
    size_t best = 0;
    double best_distance = 1.0;
    for (size_t end = n; end <= hypothesis.size(); ++end) {
      bool same = true;
      for (size_t j = 0; j < n && same; ++j)
        same = same_word(hypothesis[end - n + j].word, committed_in_buffer_[committed_in_buffer_.size() - n + j].word);
      const double distance = std::fabs(hypothesis[end - 1].end - last_committed_end_);
      if (same && distance < best_distance) {
        best = end;
        best_distance = distance;
      }
    }
    if (best > 0) return best;
  }
  return 0;
}

std::vector<Word> LocalAgreement::insert(const std::vector<Word>& hypothesis) {
  std::vector<Word> fresh;
  size_t fresh_begin = 0;  // where the fresh words start in the hypothesis
  if (const size_t start = after_committed(hypothesis); start > 0) {
    fresh.assign(hypothesis.begin() + static_cast<std::ptrdiff_t>(start), hypothesis.end());
    fresh_begin = start;
  } else {
    // It repeats none of them: its words after the committed end (with whisper_streaming's 0.1 s of slack).
    for (const Word& w : hypothesis)
      if (w.start > last_committed_end_ - 0.1) fresh.push_back(w);
    fresh_begin = hypothesis.size() - fresh.size();
  }
  // Where the fresh words are not the hypothesis's last ones (word times out of order), no prefix
  // of it is known to be committed.
  const bool suffix = std::equal(fresh.begin(), fresh.end(), hypothesis.begin() + static_cast<std::ptrdiff_t>(fresh_begin),
                                 [](const Word& a, const Word& b) { return a.word == b.word && a.start == b.start; });

  // The longest common prefix of the previous hypothesis and this one is agreed.
  size_t agreed = 0;
  while (agreed < fresh.size() && agreed < previous_.size() && same_word(fresh[agreed].word, previous_[agreed].word)) ++agreed;
  std::vector<Word> committed(fresh.begin(), fresh.begin() + static_cast<std::ptrdiff_t>(agreed));
  previous_.assign(fresh.begin() + static_cast<std::ptrdiff_t>(agreed), fresh.end());
  for (const Word& w : committed) committed_in_buffer_.push_back(w);
  if (!committed.empty()) last_committed_end_ = committed.back().end;
  committed_words_in_last_ = suffix && (fresh_begin > 0 || agreed > 0) ? fresh_begin + agreed : 0;
  last_is_known_ = suffix;
  return committed;
}

std::vector<Word> LocalAgreement::commit_tentative() {
  std::vector<Word> committed = std::move(previous_);
  previous_.clear();
  if (last_is_known_) committed_words_in_last_ += committed.size();
  for (const Word& w : committed) committed_in_buffer_.push_back(w);
  if (!committed.empty()) last_committed_end_ = committed.back().end;
  return committed;
}

void LocalAgreement::forget_committed_before(double time) {
  while (!committed_in_buffer_.empty() && committed_in_buffer_.front().end <= time) committed_in_buffer_.pop_front();
}

}  // namespace auris
