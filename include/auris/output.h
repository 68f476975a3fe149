// Writing a transcript to files the way openai/whisper's CLI does (whisper/utils.py get_writer):
// txt, vtt, srt, tsv and json, byte for byte, with the same subtitle line-splitting options.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auris/transcribe.h"

namespace auris {

// In the order openai's get_writer("all") writes them.
enum class OutputFormat { kTxt, kVtt, kSrt, kTsv, kJson };

// "txt", "vtt", "srt", "tsv" or "json"; throws auris::Error naming the accepted ones otherwise.
OutputFormat parse_output_format(std::string_view name);
// As parse_output_format, plus "all": every format, in openai's order.
std::vector<OutputFormat> parse_output_formats(std::string_view name);
// The format's name, which is also its file extension.
std::string_view output_format_name(OutputFormat format);

// openai's --max_line_width, --max_line_count, --max_words_per_line and --highlight_words. They
// shape vtt and srt only, and only when the transcript has word timings. 0 means unset, as in
// openai (`value or None`); negative values are rejected with auris::Error.
struct SubtitleOptions {
  std::optional<int> max_line_width;      // characters (code points) per line
  std::optional<int> max_line_count;      // lines per subtitle; needs max_line_width
  std::optional<int> max_words_per_line;  // ignored when max_line_width is set
  bool highlight_words = false;           // underline each word as it is spoken
};

// The warnings openai's cli() prints for option combinations that have no effect (empty: none).
std::vector<std::string> subtitle_option_warnings(const SubtitleOptions& options);

// One format as text (what the file would hold), e.g. for printing to stdout.
std::string format_transcript(const Transcript& transcript, OutputFormat format, const SubtitleOptions& options = {});
// format: txt|vtt|srt|tsv|json ("all" is refused: it is several files).
std::string format_transcript(const Transcript& transcript, std::string_view format,
                              const SubtitleOptions& options = {});

// <output_dir>/<audio file name without directory and extension>.<format>, as openai names it.
std::string output_path(const std::string& audio_path, const std::string& output_dir, OutputFormat format);

// Writes the transcript in one format or "all" of them into output_dir (created if missing, as
// openai's CLI does) and returns the paths written, in order. Each file is written to a temporary
// name and renamed, so a failure never leaves a partial file. Throws auris::Error for a bad format
// name, bad options, or a directory that cannot be created or written.
std::vector<std::string> write_transcript(const Transcript& transcript, const std::string& audio_path,
                                          const std::string& output_dir, std::string_view format,
                                          const SubtitleOptions& options = {});

}  // namespace auris
