#define PCRE2_CODE_UNIT_WIDTH 8
#include "text/python_regex.h"

#include <pcre2.h>

#include "auris/error.h"

namespace auris {
namespace {

// Python's \w for str patterns is str.isalnum() or "_", which is exactly categories L*, N* and "_".
constexpr std::string_view kWordClass = R"([\p{L}\p{N}_])";
constexpr std::string_view kSpaceClassBody =
    R"(\t-\r\x{1c}-\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000})";

std::string word_boundary() {
  const std::string w(kWordClass);
  return "(?:(?<=" + w + ")(?!" + w + ")|(?<!" + w + ")(?=" + w + "))";
}

// Rewrites the escapes whose meaning differs between Python and PCRE2; refuses the ones auris
// does not need rather than translating them wrongly.
std::string translate_pattern(std::string_view pattern) {
  std::string out;
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      const char e = pattern[++i];
      if (e == 's') {
        out += in_class ? std::string(kSpaceClassBody) : "[" + std::string(kSpaceClassBody) + "]";
      } else if (e == 'b' && !in_class) {
        out += word_boundary();
      } else if (e == 'w' && !in_class) {
        out += kWordClass;
      } else if (e == 'b' || e == 'w' || e == 'W' || e == 'S' || e == 'B' || e == 'A' || e == 'Z') {
        throw Error("PythonRegex: escape \\" + std::string(1, e) + " is not supported in pattern " +
                    std::string(pattern));
      } else {
        out += c;
        out += e;
      }
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      out += c;
      // A "]" right after "[" or "[^" is literal in both dialects.
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
      if (i + 1 < pattern.size() && pattern[i + 1] == ']') out += pattern[++i];
      continue;
    }
    if (in_class && c == ']') in_class = false;
    out += c;
  }
  return out;
}

}  // namespace

struct PythonRegex::Compiled {
  pcre2_code* code = nullptr;
  int group_count = 0;
};

PythonRegex::PythonRegex(std::string_view python_pattern) : compiled_(new Compiled) {
  const std::string pattern = translate_pattern(python_pattern);
  pcre2_compile_context* context = pcre2_compile_context_create(nullptr);
  pcre2_set_newline(context, PCRE2_NEWLINE_LF);  // Python's "$" and "." only know "\n"
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  compiled_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                  PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK, &error, &error_offset, context);
  pcre2_compile_context_free(context);
  if (compiled_->code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    delete compiled_;
    throw Error("PythonRegex: cannot compile " + pattern + " at offset " + std::to_string(error_offset) +
                ": " + reinterpret_cast<const char*>(message));
  }
  pcre2_jit_compile(compiled_->code, PCRE2_JIT_COMPLETE);  // optional speed-up; falls back silently
  uint32_t captures = 0;
  pcre2_pattern_info(compiled_->code, PCRE2_INFO_CAPTURECOUNT, &captures);
  compiled_->group_count = static_cast<int>(captures);
}

PythonRegex::~PythonRegex() {
  pcre2_code_free(compiled_->code);
  delete compiled_;
}

std::string_view PythonRegex::Match::group(int i) const {
  if (!group_matched(i)) return {};
  return subject_.substr(offsets_[2 * i], offsets_[2 * i + 1] - offsets_[2 * i]);
}

bool PythonRegex::Match::group_matched(int i) const {
  return i >= 0 && i <= group_count_ && offsets_[2 * i] != PCRE2_UNSET;
}

void PythonRegex::for_each_match(
    std::string_view text, const std::function<void(std::size_t, std::size_t, const Match&)>& on_match) const {
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(compiled_->code, nullptr);
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::size_t position = 0;
  bool after_empty_match = false;
  while (position <= text.size()) {
    // After an empty match, first try a non-empty match at the same place, as Python does.
    const uint32_t options = after_empty_match ? (PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED) : 0;
    const int rc = pcre2_match(compiled_->code, subject, text.size(), position, options | PCRE2_NO_UTF_CHECK,
                               data, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) {
      if (!after_empty_match || position >= text.size()) break;
      // Step over one whole UTF-8 character and search normally from there.
      ++position;
      while (position < text.size() && (static_cast<unsigned char>(text[position]) & 0xC0) == 0x80) ++position;
      after_empty_match = false;
      continue;
    }
    if (rc < 0) {
      pcre2_match_data_free(data);
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof message);
      throw Error(std::string("regular expression matching failed (") + reinterpret_cast<const char*>(message) +
                  "); the text may be too large or pathological for normalisation");
    }
    const PCRE2_SIZE* offsets = pcre2_get_ovector_pointer(data);
    const Match match(text, offsets, compiled_->group_count);
    const std::size_t start = offsets[0], end = offsets[1];
    on_match(start, end, match);
    position = end;
    after_empty_match = start == end;
  }
  pcre2_match_data_free(data);
}

std::string PythonRegex::sub(std::string_view text, const Replacer& replacer) const {
  std::string out;
  std::size_t copied = 0;
  for_each_match(text, [&](std::size_t start, std::size_t end, const Match& match) {
    out.append(text.substr(copied, start - copied));
    out += replacer(match);
    copied = end;
  });
  out.append(text.substr(copied));
  return out;
}

std::string PythonRegex::sub(std::string_view text, std::string_view python_template) const {
  return sub(text, [&](const Match& match) {
    std::string replaced;
    for (std::size_t i = 0; i < python_template.size(); ++i) {
      const char c = python_template[i];
      if (c == '\\' && i + 1 < python_template.size()) {
        const char e = python_template[++i];
        if (e >= '1' && e <= '9') {
          replaced += match.group(e - '0');
        } else if (e == '\\') {
          replaced += '\\';
        } else {
          throw Error("PythonRegex: unsupported template escape in " + std::string(python_template));
        }
      } else {
        replaced += c;
      }
    }
    return replaced;
  });
}

std::vector<std::string> PythonRegex::split(std::string_view text) const {
  if (compiled_->group_count != 0) throw Error("PythonRegex::split supports only patterns without groups");
  std::vector<std::string> pieces;
  std::size_t copied = 0;
  for_each_match(text, [&](std::size_t start, std::size_t end, const Match&) {
    pieces.emplace_back(text.substr(copied, start - copied));
    copied = end;
  });
  pieces.emplace_back(text.substr(copied));
  return pieces;
}

bool PythonRegex::matches_at_start(std::string_view text) const {
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(compiled_->code, nullptr);
  const int rc = pcre2_match(compiled_->code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0,
                             PCRE2_ANCHORED | PCRE2_NO_UTF_CHECK, data, nullptr);
  pcre2_match_data_free(data);
  if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) throw Error("regular expression matching failed");
  return rc >= 0;
}

}  // namespace auris
