#include "transcribe/word_timestamps.h"

#include <algorithm>
#include <cmath>

#include "audio/mel.h"
#include "transcribe/merge_punctuations.h"

namespace auris {
namespace {

// round(x, 2) on a numpy float64, which is rint(x * 100) / 100 (not Python's exact decimal rounding).
double round2(double x) { return std::nearbyint(x * 100.0) / 100.0; }

bool python_in(std::string_view needle, std::string_view haystack) { return haystack.find(needle) != std::string_view::npos; }

// np.median of the non-zero word durations, or 0 when there are none.
double median_nonzero_duration(const std::vector<WordTiming>& alignment, bool* any) {
  std::vector<double> durations;
  for (const WordTiming& t : alignment)
    if (const double d = t.end - t.start; d != 0.0) durations.push_back(d);
  *any = !durations.empty();
  if (durations.empty()) return 0.0;
  std::sort(durations.begin(), durations.end());
  const size_t n = durations.size();
  return n % 2 == 1 ? durations[n / 2] : (durations[n / 2 - 1] + durations[n / 2]) / 2.0;
}

}  // namespace

std::vector<int> text_tokens_of(const std::vector<int>& tokens, int eot) {
  std::vector<int> text;
  for (int t : tokens)
    if (t < eot) text.push_back(t);
  return text;
}

void add_word_timestamps(std::vector<Segment>& segments, const WordAligner& aligner, int num_frames,
                         std::string_view prepend_punctuations, std::string_view append_punctuations,
                         double last_speech_timestamp) {
  if (segments.empty()) return;
  const int eot = aligner.tokenizer.eot();
  std::vector<int> text_tokens;
  for (const Segment& s : segments) {
    const std::vector<int> text = text_tokens_of(s.tokens, eot);
    text_tokens.insert(text_tokens.end(), text.begin(), text.end());
  }
  std::vector<WordTiming> alignment;
  if (!text_tokens.empty()) {
    const AlignmentScores scores = alignment_forward_pass(aligner.inference, aligner.tokenizer, aligner.sot_sequence,
                                                          text_tokens, aligner.alignment_heads);
    alignment = align_words(scores, aligner.tokenizer, aligner.language, static_cast<int>(aligner.sot_sequence.size()),
                            text_tokens, num_frames);
  }
  apply_word_alignment(segments, std::move(alignment), eot, prepend_punctuations, append_punctuations,
                       last_speech_timestamp);
}

void apply_word_alignment(std::vector<Segment>& segments, std::vector<WordTiming> alignment, int eot,
                          std::string_view prepend_punctuations, std::string_view append_punctuations,
                          double last_speech_timestamp) {
  if (segments.empty()) return;
  bool any_duration = false;
  const double median_duration = std::min(0.7, median_nonzero_duration(alignment, &any_duration));
  const double max_duration = median_duration * 2;

  // openai's hack: words at sentence boundaries are at most twice the median word duration long.
  if (any_duration) {
    constexpr std::string_view kSentenceEndMarks = ".\xE3\x80\x82!\xEF\xBC\x81?\xEF\xBC\x9F";  // .。!！?？
    for (size_t i = 1; i < alignment.size(); ++i) {
      WordTiming& w = alignment[i];
      if (w.end - w.start > max_duration) {
        if (python_in(w.word, kSentenceEndMarks)) {
          w.end = w.start + max_duration;
        } else if (python_in(alignment[i - 1].word, kSentenceEndMarks)) {
          w.start = w.end - max_duration;
        }
      }
    }
  }

  merge_punctuations(alignment, prepend_punctuations, append_punctuations);

  const double time_offset = static_cast<double>(segments.front().seek) * kHopLength / kSampleRate;
  size_t word_index = 0;
  for (Segment& segment : segments) {
    const size_t n_text = text_tokens_of(segment.tokens, eot).size();
    size_t saved_tokens = 0;
    std::vector<Word> words;
    while (word_index < alignment.size() && saved_tokens < n_text) {
      const WordTiming& timing = alignment[word_index];
      if (!timing.word.empty())
        words.push_back({timing.word, round2(time_offset + timing.start), round2(time_offset + timing.end), timing.probability});
      saved_tokens += timing.tokens.size();
      ++word_index;
    }

    // openai's hack: truncate long words at segment boundaries.
    if (!words.empty()) {
      // The first and second word after a pause are at most twice the median word duration long.
      if (words[0].end - last_speech_timestamp > median_duration * 4 &&
          (words[0].end - words[0].start > max_duration ||
           (words.size() > 1 && words[1].end - words[0].start > max_duration * 2))) {
        if (words.size() > 1 && words[1].end - words[1].start > max_duration) {
          const double boundary = std::max(words[1].end / 2, words[1].end - max_duration);
          words[0].end = words[1].start = boundary;
        }
        words[0].start = std::max(0.0, words[0].end - max_duration);
      }

      // Prefer the segment's start timestamp if the first word is too long.
      if (segment.start < words[0].end && segment.start - 0.5 > words[0].start) {
        words[0].start = std::max(0.0, std::min(words[0].end - median_duration, segment.start));
      } else {
        segment.start = words[0].start;
      }

      // Prefer the segment's end timestamp if the last word is too long.
      if (segment.end > words.back().start && segment.end + 0.5 < words.back().end) {
        words.back().end = std::max(words.back().start + median_duration, segment.end);
      } else {
        segment.end = words.back().end;
      }
      last_speech_timestamp = segment.end;
    }
    segment.words = std::move(words);
  }
}

}  // namespace auris
