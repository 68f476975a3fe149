#include "output/subtitle_lines.h"

#include <optional>

#include "auris/error.h"
#include "output/timestamp_format.h"
#include "output/unicode_text.h"
#include "output/word_timings.h"

namespace auris::output {

namespace {

// openai reads each option as `value or None`: 0 counts as unset.
std::optional<long long> effective(const std::optional<int>& value) {
  if (!value || *value == 0) return std::nullopt;
  return *value;
}

struct Timing {
  std::string word;
  double start;
  double end;
};
using Subtitle = std::vector<Timing>;

// The first word's start (get_start), or the first segment's start when no segment has words.
double first_start(const Transcript& transcript) {
  for (const Segment& s : transcript.segments)
    if (!s.words.empty()) return s.words.front().start;
  return transcript.segments.empty() ? 0.0 : transcript.segments.front().start;
}

// iterate_subtitles(): the same decisions in the same order, so ties break identically.
std::vector<Subtitle> group_words(const Transcript& transcript, const SubtitleOptions& options) {
  const std::optional<long long> max_line_count = effective(options.max_line_count);
  const bool preserve_segments = !max_line_count || !effective(options.max_line_width);
  const long long max_line_width = effective(options.max_line_width).value_or(1000);
  const long long max_words_per_line = effective(options.max_words_per_line).value_or(1000);

  std::vector<Subtitle> subtitles;
  long long line_len = 0;
  long long line_count = 1;
  Subtitle subtitle;
  double last = first_start(transcript);
  for (const Segment& segment : transcript.segments) {
    const long long n = static_cast<long long>(segment.words.size());
    long long chunk_index = 0;
    long long words_count = max_words_per_line;
    while (chunk_index < n) {
      const long long remaining = n - chunk_index;
      if (max_words_per_line > remaining) words_count = remaining;
      const long long chunk_size = std::min(words_count, remaining);
      for (long long i = 0; i < chunk_size; ++i) {
        const Word& original = segment.words[chunk_index + i];
        Timing timing{original.word, original.start, original.end};
        const long long word_len = static_cast<long long>(python_length(timing.word));
        const bool long_pause = !preserve_segments && timing.start - last > 3.0;
        const bool has_room = line_len + word_len <= max_line_width;
        const bool seg_break = i == 0 && !subtitle.empty() && preserve_segments;
        if (line_len > 0 && has_room && !long_pause && !seg_break) {
          line_len += word_len;  // line continuation
        } else {
          timing.word = python_strip(timing.word);  // a new line
          if ((!subtitle.empty() && max_line_count && (long_pause || line_count >= *max_line_count)) || seg_break) {
            subtitles.push_back(std::move(subtitle));  // a new subtitle
            subtitle.clear();
            line_count = 1;
          } else if (line_len > 0) {
            ++line_count;  // a line break within this subtitle
            timing.word = "\n" + timing.word;
          }
          line_len = static_cast<long long>(python_length(python_strip(timing.word)));
        }
        last = timing.start;
        subtitle.push_back(std::move(timing));
      }
      chunk_index += max_words_per_line;
    }
  }
  if (!subtitle.empty()) subtitles.push_back(std::move(subtitle));
  return subtitles;
}

}  // namespace

std::string underline_word(const std::string& word) {
  const size_t spaces = leading_space_bytes(word);
  for (size_t k = spaces + 1; k-- > 0;) {  // \s* is greedy and backtracks
    if (k < spaces && (static_cast<unsigned char>(word[k]) & 0xC0) == 0x80) continue;  // mid-character
    const size_t newline = word.find('\n', k);
    const size_t stop = newline == std::string::npos ? word.size() : newline;
    if (stop == word.size() || stop + 1 == word.size())
      return word.substr(0, k) + "<u>" + word.substr(k, stop - k) + "</u>" + word.substr(stop);
  }
  return word;
}

void validate_subtitle_options(const SubtitleOptions& options) {
  const auto check = [](const std::optional<int>& value, const char* name, const char* unit) {
    if (value && *value < 0)
      throw Error(std::string(name) + " must be a positive number of " + unit + " (got " + std::to_string(*value) +
                  "); leave it unset (or 0) for no limit");
  };
  check(options.max_line_width, "max_line_width", "characters");
  check(options.max_line_count, "max_line_count", "lines");
  check(options.max_words_per_line, "max_words_per_line", "words");
}

std::vector<SubtitleCue> subtitle_cues(const Transcript& transcript, const SubtitleOptions& options,
                                       bool always_include_hours, std::string_view decimal_marker) {
  validate_subtitle_options(options);
  const auto time = [&](double seconds) { return format_timestamp(seconds, always_include_hours, decimal_marker); };
  std::vector<SubtitleCue> cues;

  if (!has_word_timings(transcript)) {
    for (const Segment& segment : transcript.segments) {
      std::string text = python_strip(segment.text);
      for (size_t at = 0; (at = text.find("-->", at)) != std::string::npos; at += 2) text.replace(at, 3, "->");
      cues.push_back({time(segment.start), time(segment.end), std::move(text)});
    }
    return cues;
  }

  for (const Subtitle& subtitle : group_words(transcript, options)) {
    const std::string subtitle_start = time(subtitle.front().start);
    const std::string subtitle_end = time(subtitle.back().end);
    std::string subtitle_text;
    for (const Timing& t : subtitle) subtitle_text += t.word;
    if (!options.highlight_words) {
      cues.push_back({subtitle_start, subtitle_end, std::move(subtitle_text)});
      continue;
    }
    std::string last = subtitle_start;
    for (size_t i = 0; i < subtitle.size(); ++i) {
      const std::string start = time(subtitle[i].start);
      const std::string end = time(subtitle[i].end);
      if (last != start) cues.push_back({last, start, subtitle_text});  // the gap before this word
      std::string text;
      for (size_t j = 0; j < subtitle.size(); ++j) text += j == i ? underline_word(subtitle[j].word) : subtitle[j].word;
      cues.push_back({start, end, std::move(text)});
      last = end;
    }
  }
  return cues;
}

}  // namespace auris::output
