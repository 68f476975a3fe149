#include "transcribe/merge_punctuations.h"

#include "decoding/strip_whitespace.h"

namespace auris {
namespace {

// Python's `needle in haystack` for str: string_view::find also finds "" everywhere.
bool python_in(std::string_view needle, std::string_view haystack) { return haystack.find(needle) != std::string_view::npos; }

void move_into(WordTiming& from, WordTiming& to, bool before) {
  to.word = before ? from.word + to.word : to.word + from.word;
  std::vector<int> tokens = before ? from.tokens : to.tokens;
  const std::vector<int>& rest = before ? to.tokens : from.tokens;
  tokens.insert(tokens.end(), rest.begin(), rest.end());
  to.tokens = std::move(tokens);
  from.word.clear();
  from.tokens.clear();
}

}  // namespace

void merge_punctuations(std::vector<WordTiming>& alignment, std::string_view prepended, std::string_view appended) {
  const long n = static_cast<long>(alignment.size());
  // Prepended marks, from the end: each joins the nearest following word that stayed.
  for (long i = n - 2, j = n - 1; i >= 0; --i) {
    WordTiming& previous = alignment[static_cast<size_t>(i)];
    if (!previous.word.empty() && previous.word.front() == ' ' && python_in(strip_whitespace(previous.word), prepended)) {
      move_into(previous, alignment[static_cast<size_t>(j)], /*before=*/true);
    } else {
      j = i;
    }
  }
  // Appended marks, from the start: each joins the nearest preceding word that stayed.
  for (long i = 0, j = 1; j < n; ++j) {
    WordTiming& previous = alignment[static_cast<size_t>(i)];
    WordTiming& following = alignment[static_cast<size_t>(j)];
    if (!(previous.word.size() > 0 && previous.word.back() == ' ') && python_in(following.word, appended)) {
      move_into(following, previous, /*before=*/false);
    } else {
      i = j;
    }
  }
}

}  // namespace auris
