#include "output/output_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "auris/error.h"
#include "auris/output.h"
#include "output/json_writer.h"
#include "output/srt_writer.h"
#include "output/subtitle_lines.h"
#include "output/tsv_writer.h"
#include "output/txt_writer.h"
#include "output/vtt_writer.h"
#include "tokenizer/utf8.h"

namespace auris {

namespace output {

std::string audio_basename(const std::string& audio_path) {
  const size_t slash = audio_path.rfind('/');
  const std::string name = slash == std::string::npos ? audio_path : audio_path.substr(slash + 1);
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos || name.find_first_not_of('.') >= dot) return name;
  return name.substr(0, dot);
}

namespace {

std::string system_error_text(int error) { return std::strerror(error); }

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  static std::atomic<unsigned> counter{0};
  const std::string temp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    throw Error("cannot write '" + path + "': " + system_error_text(errno) +
                "; choose an output directory you can write to");
  }
  const auto fail = [&](const std::string& what, int error) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw Error("cannot write '" + path + "': " + what + ": " + system_error_text(error) +
                "; check the free space and permissions of the output directory");
  };
  for (size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("writing failed", n < 0 ? errno : EIO);
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw Error("cannot write '" + path + "': closing failed: " + system_error_text(error) +
                "; check the free space of the output directory");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    throw Error("cannot write '" + path + "': " + system_error_text(error) +
                "; remove what is in the way or choose another output directory");
  }
}

namespace {

// The writers work on valid UTF-8, as Python's str always is; tokens can split characters, so
// replace invalid bytes the way openai's decode(errors="replace") would have.
Transcript with_valid_utf8(const Transcript& transcript) {
  Transcript t = transcript;
  const auto fix = [](std::string& s) {
    if (!is_valid_utf8(s)) s = utf8_replace_invalid(s);
  };
  fix(t.text);
  fix(t.language);
  for (Segment& s : t.segments) {
    fix(s.text);
    for (Word& w : s.words) fix(w.word);
  }
  return t;
}

std::string format_valid(const Transcript& t, OutputFormat format, const SubtitleOptions& options) {
  switch (format) {
    case OutputFormat::kTxt: return output::format_txt(t);
    case OutputFormat::kVtt: return output::format_vtt(t, options);
    case OutputFormat::kSrt: return output::format_srt(t, options);
    case OutputFormat::kTsv: return output::format_tsv(t);
    case OutputFormat::kJson: return output::format_json(t);
  }
  throw Error("unknown output format");
}

constexpr OutputFormat kAllFormats[] = {OutputFormat::kTxt, OutputFormat::kVtt, OutputFormat::kSrt, OutputFormat::kTsv,
                                        OutputFormat::kJson};

}  // namespace

}  // namespace output

OutputFormat parse_output_format(std::string_view name) {
  for (OutputFormat f : output::kAllFormats)
    if (output_format_name(f) == name) return f;
  throw Error("unknown output format '" + std::string(name) + "': use txt, vtt, srt, tsv or json" +
              (name == "all" ? " (\"all\" writes several files; use write_transcript for it)" : ""));
}

std::vector<OutputFormat> parse_output_formats(std::string_view name) {
  if (name == "all") return {std::begin(output::kAllFormats), std::end(output::kAllFormats)};
  if (name != "txt" && name != "vtt" && name != "srt" && name != "tsv" && name != "json")
    throw Error("unknown output format '" + std::string(name) + "': use txt, vtt, srt, tsv, json or all");
  return {parse_output_format(name)};
}

std::string_view output_format_name(OutputFormat format) {
  switch (format) {
    case OutputFormat::kTxt: return "txt";
    case OutputFormat::kVtt: return "vtt";
    case OutputFormat::kSrt: return "srt";
    case OutputFormat::kTsv: return "tsv";
    case OutputFormat::kJson: return "json";
  }
  return "?";
}

std::vector<std::string> subtitle_option_warnings(const SubtitleOptions& options) {
  const auto set = [](const std::optional<int>& v) { return v && *v != 0; };
  std::vector<std::string> warnings;
  if (set(options.max_line_count) && !set(options.max_line_width))
    warnings.push_back("--max_line_count has no effect without --max_line_width");
  if (set(options.max_words_per_line) && set(options.max_line_width))
    warnings.push_back("--max_words_per_line has no effect with --max_line_width");
  return warnings;
}

std::string format_transcript(const Transcript& transcript, OutputFormat format, const SubtitleOptions& options) {
  output::validate_subtitle_options(options);
  return output::format_valid(output::with_valid_utf8(transcript), format, options);
}

std::string format_transcript(const Transcript& transcript, std::string_view format, const SubtitleOptions& options) {
  return format_transcript(transcript, parse_output_format(format), options);
}

std::string output_path(const std::string& audio_path, const std::string& output_dir, OutputFormat format) {
  const std::string name = output::audio_basename(audio_path) + "." + std::string(output_format_name(format));
  return (std::filesystem::path(output_dir) / name).string();
}

std::vector<std::string> write_transcript(const Transcript& transcript, const std::string& audio_path,
                                          const std::string& output_dir, std::string_view format,
                                          const SubtitleOptions& options) {
  const std::vector<OutputFormat> formats = parse_output_formats(format);
  output::validate_subtitle_options(options);
  const Transcript valid = output::with_valid_utf8(transcript);
  // Format everything first: a bad transcript then fails before any file is touched.
  std::vector<std::string> contents;
  for (OutputFormat f : formats) contents.push_back(output::format_valid(valid, f, options));

  std::error_code ec;
  if (!output_dir.empty()) std::filesystem::create_directories(output_dir, ec);
  if (ec || (!output_dir.empty() && !std::filesystem::is_directory(output_dir)))
    throw Error("cannot create the output directory '" + output_dir + "'" + (ec ? ": " + ec.message() : "") +
                "; choose a directory you can write to");

  std::vector<std::string> written;
  for (size_t i = 0; i < formats.size(); ++i) {
    const std::string path = output_path(audio_path, output_dir, formats[i]);
    output::write_file_atomically(path, contents[i]);
    written.push_back(path);
  }
  return written;
}

}  // namespace auris
