#include "batch/chunk_packing.h"

#include <algorithm>

#include "audio/mel.h"
#include "decoding/strip_whitespace.h"

namespace auris {

std::vector<PackedChunk> pack_chunks(const std::vector<PackCandidate>& candidates, std::vector<bool>& packed) {
  const double window = kChunkSamples / static_cast<double>(kSampleRate);
  const int64_t gap = static_cast<int64_t>(kPackGapSeconds * kSampleRate);
  packed.assign(candidates.size(), false);
  std::vector<PackedChunk> windows;
  auto seconds = [](const std::vector<float>& s) { return static_cast<double>(s.size()) / kSampleRate; };
  std::vector<bool> taken(candidates.size(), false);
  for (size_t first = 0; first < candidates.size(); ++first) {
    if (taken[first] || seconds(*candidates[first].samples) >= kPackBelowSeconds) continue;
    PackedChunk w;
    double length = 0.0;
    for (size_t i = first; i < candidates.size(); ++i) {
      const PackCandidate& c = candidates[i];
      const double d = seconds(*c.samples);
      if (taken[i] || d >= kPackBelowSeconds || c.language != candidates[first].language) continue;
      const double start = w.items.empty() ? 0.0 : length + kPackGapSeconds;
      if (start + d > window) continue;
      if (!w.items.empty()) w.audio.samples.insert(w.audio.samples.end(), gap, 0.0f);
      w.audio.samples.insert(w.audio.samples.end(), c.samples->begin(), c.samples->end());
      w.items.push_back({c.source, start, start + d});
      length = start + d;
      taken[i] = true;
    }
    if (w.items.size() < 2) {  // alone: it keeps its own window
      for (const PackedItem& item : w.items)
        for (size_t i = 0; i < candidates.size(); ++i)
          if (candidates[i].source == item.source) taken[i] = false, packed[i] = false;
      continue;
    }
    for (size_t i = 0; i < candidates.size(); ++i)
      for (const PackedItem& item : w.items)
        if (candidates[i].source == item.source) packed[i] = true;
    windows.push_back(std::move(w));
  }
  return windows;
}

namespace {

// The item a time lies in: the one containing it, else the nearest (a word in a gap).
size_t item_of(double t, const std::vector<PackedItem>& items) {
  size_t best = 0;
  double best_distance = 1e300;
  for (size_t i = 0; i < items.size(); ++i) {
    const double d = t < items[i].start_s ? items[i].start_s - t : (t > items[i].end_s ? t - items[i].end_s : 0.0);
    if (d < best_distance) best = i, best_distance = d;
  }
  return best;
}

}  // namespace

std::vector<std::vector<Segment>> split_packed(const std::vector<Segment>& segments, const std::vector<PackedItem>& items,
                                               const Tokenizer& tokenizer, bool keep_words) {
  std::vector<std::vector<Segment>> out(items.size());
  for (const Segment& s : segments) {
    // The words of each item, in order.
    std::vector<std::vector<Word>> parts(items.size());
    for (const Word& w : s.words) parts[item_of(0.5 * (w.start + w.end), items)].push_back(w);
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
