// A regular expression with Python `re` semantics for str patterns, on PCRE2 (UTF-8, compiled
// once). openai/whisper's normalisers are written as Python regexes; PCRE2 agrees with them except
// for what `\b`, `\w` and `\s` mean on non-ASCII text, so those are rewritten into explicit classes
// that follow Python: a word character is a letter, a number or "_" (not a combining mark), and
// whitespace is what str.isspace() accepts.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace auris {

class PythonRegex {
 public:
  // A successful match; groups are numbered as in Python (0 is the whole match).
  class Match {
   public:
    Match(std::string_view subject, const std::size_t* offsets, int group_count)
        : subject_(subject), offsets_(offsets), group_count_(group_count) {}
    // The text of group i, or "" when the group did not take part in the match.
    std::string_view group(int i) const;
    bool group_matched(int i) const;

   private:
    std::string_view subject_;
    const std::size_t* offsets_;
    int group_count_;
  };
  using Replacer = std::function<std::string(const Match&)>;

  // Throws auris::Error if the pattern does not compile (a programming error in auris).
  explicit PythonRegex(std::string_view python_pattern);
  ~PythonRegex();
  PythonRegex(const PythonRegex&) = delete;
  PythonRegex& operator=(const PythonRegex&) = delete;

  // re.sub(pattern, template, text): the template may refer to groups as \1 .. \9.
  std::string sub(std::string_view text, std::string_view python_template) const;
  // re.sub(pattern, function, text).
  std::string sub(std::string_view text, const Replacer& replacer) const;
  // re.split(pattern, text) for patterns without groups.
  std::vector<std::string> split(std::string_view text) const;
  // re.match(pattern, text) is not None.
  bool matches_at_start(std::string_view text) const;

 private:
  // Calls on_match(start, end, match) for each non-overlapping match, left to right, with
  // Python's (3.7+) rules for empty matches.
  void for_each_match(std::string_view text,
                      const std::function<void(std::size_t, std::size_t, const Match&)>& on_match) const;

  struct Compiled;
  Compiled* compiled_;
};

}  // namespace auris
