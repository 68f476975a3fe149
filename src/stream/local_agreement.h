// The LocalAgreement-2 policy of whisper_streaming (Machacek, Dabre and Bojar, 2023): a growing audio
// buffer is decoded again at every step, and the words two consecutive hypotheses agree on, from
// the start of what is not yet committed, are committed. This is the policy alone, over timed
// words; StreamingTranscriber (include/auris/stream.h) drives it with the engine.
#pragma once

#include <deque>
#include <vector>

#include "auris/transcribe.h"

namespace auris {

class LocalAgreement {
 public:
  // A new hypothesis for the buffer: its words, times in the stream's seconds. What it says again
  // of the committed words is skipped: up to their last 5 words found by their text near where they
  // ended, or else every word starting before the committed end (with 0.1 s of slack). Returns the
  // newly committed words: the longest prefix of the rest this hypothesis shares with the previous
  // one, as this one spells them. Words are compared by their letters and digits, ignoring case
  // and punctuation.
  std::vector<Word> insert(const std::vector<Word>& hypothesis);

  // The uncommitted words of the last hypothesis, after what insert() committed: the tentative tail.
  const std::vector<Word>& tentative() const { return previous_; }

  // Commits the tentative tail as it is (end of input, or of an utterance) and returns it.
  std::vector<Word> commit_tentative();

  // Forgets committed words that end at or before `time`: the buffer was cut there, so a new
  // hypothesis cannot repeat them.
  void forget_committed_before(double time);

  // End of the last committed word, 0 before any.
  double last_committed_end() const { return last_committed_end_; }

  // How many words of the last inserted hypothesis, from its start, are committed: through the
  // committed words it was found to repeat, or through those it committed. 0 when neither.
  size_t committed_words_in_last() const { return committed_words_in_last_; }

 private:
  size_t after_committed(const std::vector<Word>& hypothesis) const;

  std::deque<Word> committed_in_buffer_;  // committed words still inside the audio buffer
  std::vector<Word> previous_;            // the last hypothesis's uncommitted words
  double last_committed_end_ = 0.0;
  size_t committed_words_in_last_ = 0;
  bool last_is_known_ = false;  // whether the tentative words are the last hypothesis's last ones
};

}  // namespace auris
