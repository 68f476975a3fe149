#include "tokenizer/bpe.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <climits>
#include <functional>
#include <memory>
#include <queue>

#include "auris/error.h"
#include "tokenizer/utf8.h"

namespace auris {
namespace {

// tiktoken's regex engine takes \s as Unicode White_Space. PCRE2's UCP \s differs at the edges
// (it adds U+180E and drops U+0085), so the set is spelled out.
#define AURIS_WS "\\t-\\r\\x20\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
constexpr const char* kPattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^" AURIS_WS "\\p{L}\\p{N}]+"
    "|[" AURIS_WS "]+(?![^" AURIS_WS "])|[" AURIS_WS "]+";
#undef AURIS_WS

struct CodeDeleter {
  void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};
struct MatchDataDeleter {
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

// Compiled once; a pcre2_code is safe to match from several threads (each with its own match data).
const pcre2_code* pattern() {
  static const std::unique_ptr<pcre2_code, CodeDeleter> code = [] {
    int error = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* c = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kPattern), PCRE2_ZERO_TERMINATED,
                                  PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
    if (c == nullptr) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(error, message, sizeof(message));
      throw Error("internal error: the tokenizer's pre-tokenisation pattern does not compile (" +
                  std::string(reinterpret_cast<const char*>(message)) + "); check the PCRE2 build");
    }
    pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);  // a speed-up only; the interpreter works without it
    return std::unique_ptr<pcre2_code, CodeDeleter>(c);
  }();
  return code.get();
}

}  // namespace

std::vector<std::string_view> whisper_pretokenize(std::string_view text) {
  if (!is_valid_utf8(text)) {
    throw Error("cannot tokenize text that is not valid UTF-8; convert the text (e.g. a prompt) "
                "to UTF-8 first");
  }
  const pcre2_code* code = pattern();
  std::unique_ptr<pcre2_match_data, MatchDataDeleter> match(
      pcre2_match_data_create_from_pattern(code, nullptr));
  std::vector<std::string_view> pieces;
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t start = 0;
  while (start < text.size()) {
    // Validity was checked above, so PCRE2 need not check it again on every call.
    const int rc = pcre2_match(code, subject, text.size(), start, PCRE2_NO_UTF_CHECK, match.get(),
                               nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;  // cannot happen: the last alternatives match anything
    if (rc < 0) {
      throw Error("internal error: pre-tokenisation failed (PCRE2 error " + std::to_string(rc) +
                  ") on a text of " + std::to_string(text.size()) + " bytes");
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.get());
    const size_t begin = ovector[0], end = ovector[1];
    if (end <= begin) break;  // the pattern never matches empty; guard against looping anyway
    pieces.push_back(text.substr(begin, end - begin));
    start = end;
  }
  return pieces;
}

BytePairEncoder::BytePairEncoder(const std::vector<std::string>& tokens) {
  ranks_.reserve(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].empty()) continue;  // multilingual's unused rank 50256; no piece is empty
    if (!ranks_.emplace(tokens[i], static_cast<int>(i)).second) {
      throw Error("BPE vocabulary has token " + std::to_string(i) + " twice (also rank " +
                  std::to_string(ranks_.find(tokens[i])->second) +
                  "); the vocabulary file is corrupt, re-download the model");
    }
  }
  for (int b = 0; b < 256; ++b) {
    const char byte = static_cast<char>(b);
    if (!ranks_.contains(std::string_view(&byte, 1))) {
      throw Error("BPE vocabulary lacks the single byte " + std::to_string(b) +
                  ", so it cannot encode every text; is this a Whisper (byte-level BPE) vocabulary?");
    }
  }
}

std::optional<int> BytePairEncoder::rank(std::string_view bytes) const {
  const auto it = ranks_.find(bytes);
  if (it == ranks_.end()) return std::nullopt;
  return it->second;
}

void BytePairEncoder::encode_piece(std::string_view piece, std::vector<int>& out) const {
  if (piece.empty()) return;
  if (const auto whole = ranks_.find(piece); whole != ranks_.end()) {
    out.push_back(whole->second);
    return;
  }
  // tiktoken's rule: merge the adjacent pair of parts whose bytes form the lowest-ranked token,
  // the leftmost of equal ranks, until no pair forms a token. Parts form a linked list over the
  // piece's byte offsets, and the candidate merges wait in a min-heap ordered by (rank, offset):
  // the offset order is the parts' order, so the heap pops the same merge as tiktoken's scan of
  // every part, in O(n log n) where the scan was O(n^2) (a long word in a prompt hung it).
  constexpr int kNone = INT_MAX;
  const size_t n = piece.size();
  // Part p starts at byte p; next[p] is the start of the part after it (n for the last part).
  std::vector<size_t> next(n), prev(n);
  std::vector<unsigned> version(n, 0);  // bumped whenever part p's candidate merge changes
  std::vector<bool> alive(n, true);
  for (size_t p = 0; p < n; ++p) {
    next[p] = p + 1;
    prev[p] = p == 0 ? n : p - 1;  // n: none
  }
  const auto rank_of = [&](size_t begin, size_t end) {
    const auto it = ranks_.find(piece.substr(begin, end - begin));
    return it == ranks_.end() ? kNone : it->second;
  };
  struct Candidate {
    int rank;
    size_t part;
    unsigned version;
    bool operator>(const Candidate& other) const {
      return rank != other.rank ? rank > other.rank : part > other.part;
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  // The merge of part p with the part after it, if their bytes are a token.
  const auto propose = [&](size_t p) {
    ++version[p];
    if (next[p] >= n) return;
    const int rank = rank_of(p, next[next[p]]);
    if (rank != kNone) heap.push({rank, p, version[p]});
  };
  for (size_t p = 0; p + 1 < n; ++p) propose(p);
  while (!heap.empty()) {
    const Candidate best = heap.top();
    heap.pop();
    if (!alive[best.part] || best.version != version[best.part]) continue;  // outdated
    const size_t p = best.part;
    const size_t absorbed = next[p];
    alive[absorbed] = false;
    next[p] = next[absorbed];
    if (next[p] < n) prev[next[p]] = p;
    propose(p);
    if (prev[p] < n) propose(prev[p]);
  }
  for (size_t p = 0; p < n; p = next[p]) {
    const int token = rank_of(p, next[p]);
    if (token == kNone) {
      throw Error("internal error: BPE produced a part that is not a token");  // bytes are tokens
    }
    out.push_back(token);
  }
}

std::vector<int> BytePairEncoder::encode(std::string_view text) const {
  std::vector<int> out;
  for (std::string_view piece : whisper_pretokenize(text)) encode_piece(piece, out);
  return out;
}

}  // namespace auris
