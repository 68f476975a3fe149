#include "text/unicode_text.h"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <memory>

#include "auris/error.h"
#include "tokenizer/utf8.h"

namespace auris {
namespace {

icu::UnicodeString to_icu(std::string_view text) {
  return icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
}

std::string from_icu(const icu::UnicodeString& text) {
  std::string out;
  text.toUTF8String(out);
  return out;
}

void check_icu(UErrorCode status, const char* operation) {
  if (U_FAILURE(status)) {
    throw Error(std::string("ICU failed in ") + operation + ": " + u_errorName(status) +
                " (is the ICU data library, libicudata, installed?)");
  }
}

std::string normalize_with(const icu::Normalizer2& normalizer, std::string_view text) {
  UErrorCode status = U_ZERO_ERROR;
  icu::UnicodeString result = normalizer.normalize(to_icu(text), status);
  check_icu(status, "Unicode normalisation");
  return from_icu(result);
}

}  // namespace

void require_valid_utf8(std::string_view text, std::string_view what) {
  if (!is_valid_utf8(text)) {
    throw Error(std::string(what) + " is not valid UTF-8 text; convert it to UTF-8 first");
  }
}

char32_t first_code_point(std::string_view text, std::size_t* length) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = b(0);
  if (lead < 0x80) {
    *length = 1;
    return lead;
  }
  if (lead < 0xE0) {
    *length = 2;
    return ((lead & 0x1Fu) << 6) | (b(1) & 0x3Fu);
  }
  if (lead < 0xF0) {
    *length = 3;
    return ((lead & 0x0Fu) << 12) | ((b(1) & 0x3Fu) << 6) | (b(2) & 0x3Fu);
  }
  *length = 4;
  return ((lead & 0x07u) << 18) | ((b(1) & 0x3Fu) << 12) | ((b(2) & 0x3Fu) << 6) | (b(3) & 0x3Fu);
}

std::u32string utf8_to_code_points(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  while (!text.empty()) {
    std::size_t length = 0;
    out.push_back(first_code_point(text, &length));
    text.remove_prefix(length);
  }
  return out;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::string code_points_to_utf8(std::u32string_view code_points) {
  std::string out;
  out.reserve(code_points.size());
  for (char32_t c : code_points) append_utf8(out, c);
  return out;
}

bool is_python_space(char32_t c) {
  // Python's Py_UNICODE_ISSPACE: bidirectional class WS, B or S, or category Zs. The ASCII
  // information separators 0x1C..0x1F are included, unlike in most regex engines.
  switch (c) {
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F:
    case 0x3000:
      return true;
    default:
      return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || (c >= 0x2000 && c <= 0x200A);
  }
}

std::vector<std::string> split_python_whitespace(std::string_view text) {
  std::vector<std::string> words;
  std::string current;
  bool in_word = false;
  while (!text.empty()) {
    std::size_t length = 0;
    const char32_t c = first_code_point(text, &length);
    if (is_python_space(c)) {
      if (in_word) words.push_back(std::move(current));
      current.clear();
      in_word = false;
    } else {
      current.append(text.substr(0, length));
      in_word = true;
    }
    text.remove_prefix(length);
  }
  if (in_word) words.push_back(std::move(current));
  return words;
}

std::string_view strip_python_whitespace(std::string_view text) {
  std::size_t begin = std::string_view::npos, end = 0;
  for (std::size_t pos = 0, length = 0; pos < text.size(); pos += length) {
    if (!is_python_space(first_code_point(text.substr(pos), &length))) {
      if (begin == std::string_view::npos) begin = pos;
      end = pos + length;
    }
  }
  return begin == std::string_view::npos ? text.substr(0, 0) : text.substr(begin, end - begin);
}

std::string python_lower(std::string_view text) {
  icu::UnicodeString s = to_icu(text);
  s.toLower(icu::Locale::getRoot());  // root locale: no Turkish/Lithuanian tailoring, as in Python
  return from_icu(s);
}

std::string normalize_nfkd(std::string_view text) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* normalizer = icu::Normalizer2::getNFKDInstance(status);
  check_icu(status, "loading NFKD");
  return normalize_with(*normalizer, text);
}

std::string normalize_nfkc(std::string_view text) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* normalizer = icu::Normalizer2::getNFKCInstance(status);
  check_icu(status, "loading NFKC");
  return normalize_with(*normalizer, text);
}

std::string_view unicode_category(char32_t c) {
  // Indexed by ICU's UCharCategory, whose order is fixed by its API.
  static constexpr std::string_view kNames[] = {
      "Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Me", "Mc", "Nd", "Nl", "No", "Zs", "Zl", "Zp",
      "Cc", "Cf", "Co", "Cs", "Pd", "Ps", "Pe", "Pc", "Po", "Sm", "Sc", "Sk", "So", "Pi", "Pf"};
  const int8_t type = u_charType(static_cast<UChar32>(c));
  if (type < 0 || type >= static_cast<int8_t>(std::size(kNames))) return "Cn";
  return kNames[type];
}

bool is_decimal_digit(char32_t c) { return u_charType(static_cast<UChar32>(c)) == U_DECIMAL_DIGIT_NUMBER; }

int decimal_digit_value(char32_t c) {
  return is_decimal_digit(c) ? u_charDigitValue(static_cast<UChar32>(c)) : -1;
}

std::vector<std::string> grapheme_clusters(std::string_view text) {
  const icu::UnicodeString s = to_icu(text);
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::BreakIterator> breaks(
      icu::BreakIterator::createCharacterInstance(icu::Locale::getRoot(), status));
  check_icu(status, "creating a grapheme break iterator");
  breaks->setText(s);
  std::vector<std::string> clusters;
  int32_t start = breaks->first();
  for (int32_t end = breaks->next(); end != icu::BreakIterator::DONE; start = end, end = breaks->next()) {
    clusters.push_back(from_icu(s.tempSubStringBetween(start, end)));
  }
  return clusters;
}

}  // namespace auris
