// Word error rate the way jiwer computes it (jiwer.wer / jiwer.process_words with the default
// transform): each sentence is split into words, aligned to its hypothesis by Levenshtein distance,
// and the substitutions, deletions and insertions are summed over all sentence pairs;
// WER = (S + D + I) / N with N the number of reference words. Among equally short alignments the
// one rapidfuzz (jiwer's engine) picks is reproduced, so the S/D/I split matches jiwer too.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace auris {

struct WordEditCounts {
  std::size_t hits = 0;
  std::size_t substitutions = 0;
  std::size_t deletions = 0;
  std::size_t insertions = 0;

  std::size_t reference_words() const { return hits + substitutions + deletions; }
  std::size_t errors() const { return substitutions + deletions + insertions; }
  // (S + D + I) / N; with no reference words jiwer reports the number of insertions instead.
  double word_error_rate() const;
  WordEditCounts& operator+=(const WordEditCounts& other);
};

// jiwer's default word split: runs of 2+ whitespace become " ", strip, split on " ".
std::vector<std::string> jiwer_words(std::string_view sentence);

// Aligns one reference word sequence with one hypothesis. Throws auris::Error if the two are too
// long to align in memory (more than about 2e9 word pairs after their common ends are removed).
WordEditCounts align_words(const std::vector<std::string>& reference, const std::vector<std::string>& hypothesis);

// Sums align_words(jiwer_words(r), jiwer_words(h)) over sentence pairs. Throws auris::Error if
// the two lists differ in length.
WordEditCounts word_edit_counts(const std::vector<std::string>& references,
                                const std::vector<std::string>& hypotheses);

}  // namespace auris
