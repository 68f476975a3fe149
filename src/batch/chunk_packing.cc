#include "batch/chunk_packing.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "audio/mel.h"
#include "decoding/strip_whitespace.h"

namespace auris {

std::vector<PackedChunk> pack_chunks(const std::vector<PackCandidate>& candidates, std::vector<bool>& packed) {
  const int64_t gap = static_cast<int64_t>(kPackGapSeconds * kSampleRate);
  const int64_t below = static_cast<int64_t>(kPackBelowSeconds * kSampleRate);
  auto short_enough = [&](size_t i) { return candidates[i].num_samples < below; };
  packed.assign(candidates.size(), false);
  std::vector<PackedChunk> windows;
  for (size_t first = 0; first < candidates.size(); ++first) {
    if (packed[first] || !short_enough(first)) continue;
    std::vector<size_t> members = {first};
    int64_t length = candidates[first].num_samples;
    for (size_t i = first + 1; i < candidates.size(); ++i) {
      if (packed[i] || !short_enough(i) || candidates[i].language != candidates[first].language) continue;
      if (length + gap + candidates[i].num_samples > kChunkSamples) continue;
      members.push_back(i);
      length += gap + candidates[i].num_samples;
    }
    if (members.size() < 2) continue;  // alone: it keeps a window of its own
    PackedChunk w;
    int64_t at = 0;
    for (size_t i : members) {
      if (at > 0) at += gap;
      const int64_t end = at + candidates[i].num_samples;
      w.items.push_back({candidates[i].source, static_cast<double>(at) / kSampleRate, static_cast<double>(end) / kSampleRate});
      at = end;
      packed[i] = true;
    }
    windows.push_back(std::move(w));
  }
  return windows;
}

std::vector<float> lay_out(const PackedChunk& pack, const std::function<std::vector<float>(size_t source)>& samples_of) {
  std::vector<float> audio;
  for (const PackedItem& item : pack.items) {
    audio.resize(static_cast<size_t>(std::llround(item.start_s * kSampleRate)), 0.0f);  // the gap before it
    const std::vector<float> samples = samples_of(item.source);
    audio.insert(audio.end(), samples.begin(), samples.end());
  }
  return audio;
}

namespace {

// The item a time lies in, or items.size() when it lies in a gap.
size_t item_containing(double t, const std::vector<PackedItem>& items) {
  for (size_t i = 0; i < items.size(); ++i)
    if (t >= items[i].start_s && t <= items[i].end_s) return i;
  return items.size();
}

// The item a time lies in: the one containing it, else the nearest.
size_t item_nearest(double t, const std::vector<PackedItem>& items) {
  size_t best = 0;
  double best_distance = 1e300;
  for (size_t i = 0; i < items.size(); ++i) {
    const double d = t < items[i].start_s ? items[i].start_s - t : (t > items[i].end_s ? t - items[i].end_s : 0.0);
    if (d < best_distance) best = i, best_distance = d;
  }
  return best;
}

// The item a word was spoken in. The alignment gives the silence before a word to that word, so
// the first word after a gap often starts in the gap or even in the chunk before it, while its end
// is where it was spoken: a word goes to the chunk its end lies in. A last word can reach into
// the gap after its chunk: then its start decides.
size_t item_of(const Word& w, const std::vector<PackedItem>& items) {
  if (size_t i = item_containing(w.end, items); i < items.size()) return i;
  if (size_t i = item_containing(w.start, items); i < items.size()) return i;
  return item_nearest(0.5 * (w.start + w.end), items);
}

}  // namespace

std::vector<std::vector<Segment>> split_packed(const std::vector<Segment>& segments, const std::vector<PackedItem>& items,
                                               const Tokenizer& tokenizer, bool keep_words) {
  std::vector<std::vector<Segment>> out(items.size());
  for (const Segment& s : segments) {
    // The words of each item, in order.
    std::vector<std::vector<Word>> parts(items.size());
    for (const Word& w : s.words) parts[item_of(w, items)].push_back(w);
    const long owners = std::count_if(parts.begin(), parts.end(), [](const auto& p) { return !p.empty(); });
    for (size_t i = 0; i < items.size(); ++i) {
      if (parts[i].empty()) continue;
      const double offset = items[i].start_s;
      Segment part = s;
      part.words = parts[i];
      if (owners > 1) {
        std::string text;
        for (const Word& w : part.words) text += w.word;
        part.text = text;
        part.tokens = tokenizer.encode(text);
      }
      // On the item's own timeline, within its audio (a word at its edge may reach into the gap).
      const double length = items[i].end_s - items[i].start_s;
      auto local = [&](double t) { return std::clamp(t - offset, 0.0, length); };
      part.start = local(part.words.front().start);
      part.end = std::max(part.start, local(part.words.back().end));
      for (Word& w : part.words) {
        w.start = local(w.start);
        w.end = std::max(w.start, local(w.end));
      }
      if (!keep_words) part.words.clear();
      if (!strip_whitespace(part.text).empty()) out[i].push_back(std::move(part));
    }
  }
  return out;
}

}  // namespace auris
