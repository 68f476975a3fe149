#include "text/word_error_rate.h"

#include <cstdint>
#include <unordered_map>

#include "auris/error.h"
#include "text/python_regex.h"
#include "text/unicode_text.h"

namespace auris {
namespace {

constexpr std::size_t kMaxAlignmentCells = std::size_t{1} << 31;

// A bit per (hypothesis position, reference position) cell.
class BitMatrix {
 public:
  BitMatrix(std::size_t rows, std::size_t columns) : columns_(columns), bits_((rows * columns + 63) / 64) {}
  void set(std::size_t row, std::size_t column) {
    const std::size_t i = row * columns_ + column;
    bits_[i / 64] |= std::uint64_t{1} << (i % 64);
  }
  bool test(std::size_t row, std::size_t column) const {
    const std::size_t i = row * columns_ + column;
    return (bits_[i / 64] >> (i % 64)) & 1;
  }

 private:
  std::size_t columns_;
  std::vector<std::uint64_t> bits_;
};

// Alignment of two id sequences without common prefix or suffix. D[c][r] is the distance between
// the first c reference and first r hypothesis words; we keep only the sign of
// D[c][r] - D[c-1][r] (rapidfuzz's VP/VN bit matrices) and walk back from the end with rapidfuzz's
// preferences: a deletion if it is optimal, else an insertion if the diagonal step cannot be, else
// the diagonal (a hit or a substitution).
WordEditCounts align_core(const std::vector<int>& a, const std::vector<int>& b) {
  const std::size_t n = a.size(), m = b.size();
  WordEditCounts counts;
  if (n == 0 || m == 0) {
    counts.deletions = n;
    counts.insertions = m;
    return counts;
  }
  if (n > kMaxAlignmentCells / m) {
    throw Error("cannot align " + std::to_string(n) + " reference words with " + std::to_string(m) +
                " hypothesis words in memory; compute WER over shorter segments (one line per utterance)");
  }
  BitMatrix vertical_up(m, n), vertical_down(m, n);
  std::vector<std::size_t> previous(n + 1), current(n + 1);
  for (std::size_t c = 0; c <= n; ++c) previous[c] = c;
  for (std::size_t r = 1; r <= m; ++r) {
    current[0] = r;
    for (std::size_t c = 1; c <= n; ++c) {
      std::size_t d = previous[c - 1] + (a[c - 1] != b[r - 1] ? 1 : 0);
      d = std::min(d, previous[c] + 1);
      d = std::min(d, current[c - 1] + 1);
      current[c] = d;
      if (d > current[c - 1]) vertical_up.set(r - 1, c - 1);
      if (d < current[c - 1]) vertical_down.set(r - 1, c - 1);
    }
    std::swap(previous, current);
  }
  std::size_t c = n, r = m;
  while (r > 0 && c > 0) {
    if (vertical_up.test(r - 1, c - 1)) {
      ++counts.deletions;
      --c;
      continue;
    }
    --r;
    if (r > 0 && vertical_down.test(r - 1, c - 1)) {
      ++counts.insertions;
    } else {
      --c;
      if (a[c] != b[r]) {
        ++counts.substitutions;
      } else {
        ++counts.hits;
      }
    }
  }
  counts.deletions += c;
  counts.insertions += r;
  return counts;
}

}  // namespace

double WordEditCounts::word_error_rate() const {
  const std::size_t n = reference_words();
  if (n == 0) return static_cast<double>(insertions);
  return static_cast<double>(errors()) / static_cast<double>(n);
}

WordEditCounts& WordEditCounts::operator+=(const WordEditCounts& other) {
  hits += other.hits;
  substitutions += other.substitutions;
  deletions += other.deletions;
  insertions += other.insertions;
  return *this;
}

std::vector<std::string> jiwer_words(std::string_view sentence) {
  static const PythonRegex multiple_spaces(R"(\s\s+)");
  const std::string collapsed = multiple_spaces.sub(sentence, " ");
  const std::string_view stripped = strip_python_whitespace(collapsed);
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start <= stripped.size()) {
    std::size_t end = stripped.find(' ', start);
    if (end == std::string_view::npos) end = stripped.size();
    if (end > start) words.emplace_back(stripped.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

WordEditCounts align_words(const std::vector<std::string>& reference, const std::vector<std::string>& hypothesis) {
  std::unordered_map<std::string_view, int> ids;
  const auto to_ids = [&](const std::vector<std::string>& words) {
    std::vector<int> out;
    out.reserve(words.size());
    for (const std::string& w : words) out.push_back(ids.emplace(w, static_cast<int>(ids.size())).first->second);
    return out;
  };
  std::vector<int> a = to_ids(reference), b = to_ids(hypothesis);

  // Common ends are hits and take no part in the alignment choice (rapidfuzz removes them first).
  WordEditCounts counts;
  std::size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  counts.hits = prefix + suffix;
  a = std::vector<int>(a.begin() + prefix, a.end() - suffix);
  b = std::vector<int>(b.begin() + prefix, b.end() - suffix);
  counts += align_core(a, b);
  return counts;
}

WordEditCounts word_edit_counts(const std::vector<std::string>& references,
                                const std::vector<std::string>& hypotheses) {
  if (references.size() != hypotheses.size()) {
    throw Error("word error rate needs one hypothesis per reference, but got " + std::to_string(references.size()) +
                " references and " + std::to_string(hypotheses.size()) + " hypotheses");
  }
  WordEditCounts total;
  for (std::size_t i = 0; i < references.size(); ++i) {
    require_valid_utf8(references[i], "reference " + std::to_string(i + 1));
    require_valid_utf8(hypotheses[i], "hypothesis " + std::to_string(i + 1));
    total += align_words(jiwer_words(references[i]), jiwer_words(hypotheses[i]));
  }
  return total;
}

}  // namespace auris
