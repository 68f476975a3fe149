#include "text/english_number_normalizer.h"

#include <optional>

#include "auris/error.h"
#include "text/unicode_text.h"

namespace auris {
namespace {

// ---- Python int arithmetic on non-negative integers held as canonical decimal digit strings ----

std::string canonical_digits(std::string digits) {
  const std::size_t first = digits.find_first_not_of('0');
  return first == std::string::npos ? "0" : digits.substr(first);
}

std::string add_integers(const std::string& a, const std::string& b) {
  std::string sum;
  int carry = 0;
  for (std::size_t i = 0; i < a.size() || i < b.size() || carry; ++i) {
    int digit = carry;
    if (i < a.size()) digit += a[a.size() - 1 - i] - '0';
    if (i < b.size()) digit += b[b.size() - 1 - i] - '0';
    sum.insert(sum.begin(), static_cast<char>('0' + digit % 10));
    carry = digit / 10;
  }
  return canonical_digits(sum);
}

// value % 10**k for k <= 3.
int low_digits(const std::string& value, std::size_t k) {
  const std::string tail = value.size() <= k ? value : value.substr(value.size() - k);
  return std::stoi(tail);
}

std::string times_power_of_ten(const std::string& value, std::size_t zeros) {
  return value == "0" ? value : value + std::string(zeros, '0');
}

// value // 1000 * 1000 + value % 1000 * multiplier
std::string apply_multiplier(const std::string& value, const std::string& multiplier) {
  const std::string before = value.size() <= 3 ? "0" : value.substr(0, value.size() - 3) + "000";
  const std::string residual = std::to_string(low_digits(value, 3));
  return add_integers(before, times_power_of_ten(residual, multiplier.size() - 1));
}

// ---- fractions.Fraction(s) for the digit strings process_words builds ----

struct Decimal {
  std::string integer_digits;   // ASCII, possibly empty
  std::string fraction_digits;  // ASCII, possibly empty
};

// Python 3.11's Fraction accepts "12", "12.", "12.5", ".5" (with any Unicode decimal digits) and
// raises ValueError for anything else these strings can contain ("1.5.3", "1.$5", ".").
std::optional<Decimal> parse_fraction(std::string_view text) {
  Decimal d;
  bool seen_point = false;
  for (char32_t c : utf8_to_code_points(text)) {
    if (c == U'.') {
      if (seen_point) return std::nullopt;
      seen_point = true;
    } else if (const int digit = decimal_digit_value(c); digit >= 0) {
      (seen_point ? d.fraction_digits : d.integer_digits) += static_cast<char>('0' + digit);
    } else {
      return std::nullopt;
    }
  }
  if (d.integer_digits.empty() && d.fraction_digits.empty()) return std::nullopt;
  return d;
}

// The numerator of Fraction(d) * 10**zeros when that product is an integer.
std::optional<std::string> integer_after_scaling(const Decimal& d, std::size_t zeros) {
  std::string fraction = d.fraction_digits;
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  if (fraction.size() > zeros) return std::nullopt;
  return canonical_digits(d.integer_digits + fraction + std::string(zeros - fraction.size(), '0'));
}

// Python's `value` in process_words: None, an int, or a str of digits.
struct Value {
  enum class Kind { kNone, kInteger, kText };
  Kind kind = Kind::kNone;
  std::string repr;  // integer: canonical digits; text: the string itself

  static Value integer(std::string digits) { return {Kind::kInteger, std::move(digits)}; }
  static Value integer(int n) { return {Kind::kInteger, std::to_string(n)}; }
  static Value text(std::string s) { return {Kind::kText, std::move(s)}; }
  bool is_none() const { return kind == Kind::kNone; }
  bool is_int() const { return kind == Kind::kInteger; }
  bool is_text() const { return kind == Kind::kText; }
  // str(value or ""): None and 0 are falsy.
  std::string or_empty() const { return (is_none() || (is_int() && repr == "0")) ? "" : repr; }
};

const char* const kOnes[] = {"one",     "two",     "three",    "four",     "five",    "six",     "seven",
                             "eight",   "nine",    "ten",      "eleven",   "twelve",  "thirteen", "fourteen",
                             "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"};
const std::pair<const char*, int> kTens[] = {{"twenty", 20},  {"thirty", 30}, {"forty", 40},  {"fifty", 50},
                                             {"sixty", 60},   {"seventy", 70}, {"eighty", 80}, {"ninety", 90}};
const std::pair<const char*, int> kMultipliers[] = {
    {"hundred", 2},      {"thousand", 3},    {"million", 6},     {"billion", 9},
    {"trillion", 12},    {"quadrillion", 15}, {"quintillion", 18}, {"sextillion", 21},
    {"septillion", 24},  {"octillion", 27},  {"nonillion", 30},  {"decillion", 33}};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// " ".join(pieces)
std::string join_with_spaces(const std::vector<std::string>& pieces) {
  std::string joined;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0) joined += ' ';
    joined += pieces[i];
  }
  return joined;
}

}  // namespace

EnglishNumberNormalizer::EnglishNumberNormalizer() {
  zeros_ = {"o", "oh", "zero"};
  int value = 1;
  for (const char* name : kOnes) ones_[name] = value++;
  for (const auto& [name, v] : ones_) {
    ones_suffixed_[name == "six" ? "sixes" : name + "s"] = {v, "s"};
  }
  ones_suffixed_["zeroth"] = {0, "th"};
  ones_suffixed_["first"] = {1, "st"};
  ones_suffixed_["second"] = {2, "nd"};
  ones_suffixed_["third"] = {3, "rd"};
  ones_suffixed_["fifth"] = {5, "th"};
  ones_suffixed_["twelfth"] = {12, "th"};
  for (const auto& [name, v] : ones_) {
    // english.py's rule, quirks included: "eighth", but also "nineth" (and no "ninth").
    if (v > 3 && v != 5 && v != 12) ones_suffixed_[name + (name.back() == 't' ? "h" : "th")] = {v, "th"};
  }
  for (const auto& [name, v] : kTens) {
    tens_[name] = v;
    tens_suffixed_[replace_all(name, "y", "ies")] = {v, "s"};
    tens_suffixed_[replace_all(name, "y", "ieth")] = {v, "th"};
  }
  for (const auto& [name, zeros] : kMultipliers) {
    std::string digits(static_cast<size_t>(zeros) + 1, '0');  // "1" + string(...) trips GCC 12's -Wrestrict
    digits[0] = '1';
    multipliers_[name] = digits;
    multipliers_suffixed_[std::string(name) + "s"] = {digits, "s"};
    multipliers_suffixed_[std::string(name) + "th"] = {digits, "th"};
  }
  preceding_prefixers_ = {{"minus", "-"}, {"negative", "-"}, {"plus", "+"}, {"positive", "+"}};
  following_prefixers_ = {{"pound", "£"}, {"pounds", "£"}, {"euro", "€"}, {"euros", "€"},
                          {"dollar", "$"}, {"dollars", "$"}, {"cent", "¢"},  {"cents", "¢"}};
  for (const auto& [name, symbol] : preceding_prefixers_) prefixes_.insert(symbol);
  for (const auto& [name, symbol] : following_prefixers_) prefixes_.insert(symbol);
  specials_ = {"and", "double", "triple", "point"};

  words_ = zeros_;
  for (const auto& m : ones_) words_.insert(m.first);
  for (const auto& m : ones_suffixed_) words_.insert(m.first);
  for (const auto& m : tens_) words_.insert(m.first);
  for (const auto& m : tens_suffixed_) words_.insert(m.first);
  for (const auto& m : multipliers_) words_.insert(m.first);
  for (const auto& m : multipliers_suffixed_) words_.insert(m.first);
  for (const auto& m : preceding_prefixers_) words_.insert(m.first);
  for (const auto& m : following_prefixers_) words_.insert(m.first);
  words_.insert({"per", "percent"});  // the suffixers
  words_.insert(specials_.begin(), specials_.end());
}

std::vector<std::string> EnglishNumberNormalizer::process_words(const std::vector<std::string>& words) const {
  std::vector<std::string> out;
  std::string prefix;  // "" stands for Python's None: prefixes are never empty
  Value value;
  bool skip = false;

  // output(result): applies and clears the pending prefix, clears the pending value.
  const auto output = [&](const std::string& result) {
    out.push_back(prefix + result);
    value = Value();
    prefix.clear();
  };

  for (std::size_t i = 0; i < words.size(); ++i) {
    if (skip) {
      skip = false;
      continue;
    }
    static const std::string kNone;  // Python's None for prev/next at the edges: in no mapping
    const std::string& prev = i > 0 ? words[i - 1] : kNone;
    const std::string& current = words[i];
    const bool has_next = i + 1 < words.size();
    const std::string& next = has_next ? words[i + 1] : kNone;

    const bool next_is_numeric = has_next && numeric_word_.matches_at_start(next);
    std::size_t first_length = 0;
    first_code_point(current, &first_length);
    const std::string first_char = current.substr(0, first_length);
    const bool has_prefix = prefixes_.count(first_char) != 0;
    const std::string current_without_prefix = has_prefix ? current.substr(first_length) : current;

    if (numeric_word_.matches_at_start(current_without_prefix)) {
      // arabic numbers (potentially with signs and fractions)
      const Decimal f = *parse_fraction(current_without_prefix);
      if (!value.is_none()) {
        if (value.is_text() && value.repr.back() == '.') {
          // concatenate decimals / ip address components
          value = Value::text(value.repr + current);
          continue;
        }
        output(value.repr);
      }
      if (has_prefix) prefix = first_char;
      if (const auto integer = integer_after_scaling(f, 0)) {
        value = Value::integer(*integer);  // store integers as int
      } else {
        value = Value::text(current_without_prefix);
      }
    } else if (!is_word(current)) {
      // non-numeric words
      if (!value.is_none()) output(value.repr);
      output(current);
    } else if (zeros_.count(current)) {
      value = Value::text(value.or_empty() + "0");
    } else if (const auto one = ones_.find(current); one != ones_.end()) {
      const int ones = one->second;
      if (value.is_none()) {
        value = Value::integer(ones);
      } else if (value.is_text() || ones_.count(prev)) {
        if (tens_.count(prev) && ones < 10) {  // replace the last zero with the digit
          if (value.repr.empty() || value.repr.back() != '0') throw Error("EnglishNumberNormalizer: internal error");
          value = Value::text(value.repr.substr(0, value.repr.size() - 1) + std::to_string(ones));
        } else {
          value = Value::text(value.repr + std::to_string(ones));
        }
      } else if (ones < 10) {
        value = low_digits(value.repr, 1) == 0 ? Value::integer(add_integers(value.repr, std::to_string(ones)))
                                               : Value::text(value.repr + std::to_string(ones));
      } else {  // eleven to nineteen
        value = low_digits(value.repr, 2) == 0 ? Value::integer(add_integers(value.repr, std::to_string(ones)))
                                               : Value::text(value.repr + std::to_string(ones));
      }
    } else if (const auto one_suffixed = ones_suffixed_.find(current); one_suffixed != ones_suffixed_.end()) {
      // ordinal or cardinal; yield the number right away
      const auto& [ones, suffix] = one_suffixed->second;
      if (value.is_none()) {
        output(std::to_string(ones) + suffix);
      } else if (value.is_text() || ones_.count(prev)) {
        if (tens_.count(prev) && ones < 10) {
          if (value.repr.empty() || value.repr.back() != '0') throw Error("EnglishNumberNormalizer: internal error");
          output(value.repr.substr(0, value.repr.size() - 1) + std::to_string(ones) + suffix);
        } else {
          output(value.repr + std::to_string(ones) + suffix);
        }
      } else if (ones < 10) {
        output((low_digits(value.repr, 1) == 0 ? add_integers(value.repr, std::to_string(ones))
                                               : value.repr + std::to_string(ones)) + suffix);
      } else {  // eleven to nineteen
        output((low_digits(value.repr, 2) == 0 ? add_integers(value.repr, std::to_string(ones))
                                               : value.repr + std::to_string(ones)) + suffix);
      }
      value = Value();
    } else if (const auto ten = tens_.find(current); ten != tens_.end()) {
      const int tens = ten->second;
      if (value.is_none()) {
        value = Value::integer(tens);
      } else if (value.is_text()) {
        value = Value::text(value.repr + std::to_string(tens));
      } else {
        value = low_digits(value.repr, 2) == 0 ? Value::integer(add_integers(value.repr, std::to_string(tens)))
                                               : Value::text(value.repr + std::to_string(tens));
      }
    } else if (const auto ten_suffixed = tens_suffixed_.find(current); ten_suffixed != tens_suffixed_.end()) {
      // ordinal or cardinal; yield the number right away
      const auto& [tens, suffix] = ten_suffixed->second;
      if (value.is_none()) {
        output(std::to_string(tens) + suffix);
      } else if (value.is_text()) {
        output(value.repr + std::to_string(tens) + suffix);
      } else {
        output((low_digits(value.repr, 2) == 0 ? add_integers(value.repr, std::to_string(tens))
                                               : value.repr + std::to_string(tens)) + suffix);
      }
    } else if (const auto mult = multipliers_.find(current); mult != multipliers_.end()) {
      const std::string& multiplier = mult->second;
      if (value.is_none()) {
        value = Value::integer(multiplier);
      } else if (value.is_text() || value.repr == "0") {
        const std::optional<Decimal> f = parse_fraction(value.repr);
        const std::optional<std::string> product = f ? integer_after_scaling(*f, multiplier.size() - 1) : std::nullopt;
        if (product) {
          value = Value::integer(*product);
        } else {
          output(value.repr);
          value = Value::integer(multiplier);
        }
      } else {
        value = Value::integer(apply_multiplier(value.repr, multiplier));
      }
    } else if (const auto mult_suffixed = multipliers_suffixed_.find(current);
               mult_suffixed != multipliers_suffixed_.end()) {
      const auto& [multiplier, suffix] = mult_suffixed->second;
      if (value.is_none()) {
        output(multiplier + suffix);
      } else if (value.is_text()) {
        const std::optional<Decimal> f = parse_fraction(value.repr);
        const std::optional<std::string> product = f ? integer_after_scaling(*f, multiplier.size() - 1) : std::nullopt;
        if (product) {
          output(*product + suffix);
        } else {
          output(value.repr);
          output(multiplier + suffix);
        }
      } else {
        output(apply_multiplier(value.repr, multiplier) + suffix);
      }
      value = Value();
    } else if (const auto preceding = preceding_prefixers_.find(current); preceding != preceding_prefixers_.end()) {
      // apply prefix (positive, minus, etc.) if it precedes a number
      if (!value.is_none()) output(value.repr);
      if (is_word(next) || next_is_numeric) {
        prefix = preceding->second;
      } else {
        output(current);
      }
    } else if (const auto following = following_prefixers_.find(current); following != following_prefixers_.end()) {
      // apply prefix (dollars, cents, etc.) only after a number
      if (!value.is_none()) {
        prefix = following->second;
        output(value.repr);
      } else {
        output(current);
      }
    } else if (current == "per" || current == "percent") {
      // apply suffix symbols (percent -> '%')
      if (!value.is_none()) {
        if (current == "per") {
          if (next == "cent") {
            output(value.repr + "%");
            skip = true;
          } else {
            output(value.repr);
            output(current);
          }
        } else {
          output(value.repr + "%");
        }
      } else {
        output(current);
      }
    } else if (specials_.count(current)) {
      if (!is_word(next) && !next_is_numeric) {
        // apply special handling only if the next word can be numeric
        if (!value.is_none()) output(value.repr);
        output(current);
      } else if (current == "and") {
        // ignore "and" after hundreds, thousands, etc.
        if (!multipliers_.count(prev)) {
          if (!value.is_none()) output(value.repr);
          output(current);
        }
      } else if (current == "double" || current == "triple") {
        if (ones_.count(next) || zeros_.count(next)) {
          const int repeats = current == "double" ? 2 : 3;
          const auto next_one = ones_.find(next);
          const std::string digit = std::to_string(next_one == ones_.end() ? 0 : next_one->second);
          std::string repeated;
          for (int r = 0; r < repeats; ++r) repeated += digit;
          value = Value::text(value.or_empty() + repeated);
          skip = true;
        } else {
          if (!value.is_none()) output(value.repr);
          output(current);
        }
      } else if (current == "point") {
        if (is_decimal_word(next) || next_is_numeric) value = Value::text(value.or_empty() + ".");
      }
    }
  }
  if (!value.is_none()) output(value.repr);
  return out;
}

std::string EnglishNumberNormalizer::preprocess(std::string_view text) const {
  // replace "<number> and a half" with "<number> point five"
  const std::vector<std::string> segments = and_a_half_.split(text);
  std::vector<std::string> results;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::string& segment = segments[i];
    if (strip_python_whitespace(segment).empty()) continue;
    results.push_back(segment);
    if (i + 1 < segments.size()) {
      const std::string last_word = split_python_whitespace(segment).back();
      const bool numeric = is_decimal_word(last_word) || multipliers_.count(last_word);
      results.push_back(numeric ? "point five" : "and a half");
    }
  }
  std::string s = letter_digit_.sub(join_with_spaces(results), R"(\1 \2)");  // a space at number/letter boundaries
  s = digit_letter_.sub(s, R"(\1 \2)");
  return spaced_suffix_.sub(s, R"(\1\2)");  // but not before what could be a suffix
}

std::string EnglishNumberNormalizer::postprocess(std::string_view text) const {
  // "$2 and ¢7" -> "$2.07"
  std::string s = currency_and_cents_.sub(text, [](const PythonRegex::Match& m) {
    const int cents = std::stoi(std::string(m.group(3)));
    return std::string(m.group(1)) + std::string(m.group(2)) + "." + (cents < 10 ? "0" : "") + std::to_string(cents);
  });
  // "$0.07" -> "¢7"
  s = currency_below_one_.sub(s, [](const PythonRegex::Match& m) {
    return "¢" + std::to_string(std::stoi(std::string(m.group(1))));
  });
  // write "one(s)" instead of "1(s)", just for the readability
  return literal_one_.sub(s, R"(one\1)");
}

std::string EnglishNumberNormalizer::operator()(std::string_view text) const {
  return postprocess(join_with_spaces(process_words(split_python_whitespace(preprocess(text)))));
}

}  // namespace auris
