#include "batch/chunk_packing.h"

#include <algorithm>
#include <cstdint>

#include "audio/mel.h"
#include "decoding/strip_whitespace.h"

namespace auris {

std::vector<PackedChunk> pack_chunks(const std::vector<PackCandidate>& candidates, std::vector<bool>& packed) {
  const double window = kChunkSamples / static_cast<double>(kSampleRate);
  const size_t gap = static_cast<size_t>(kPackGapSeconds * kSampleRate);
  auto seconds = [&](size_t i) { return static_cast<double>(candidates[i].samples->size()) / kSampleRate; };
  auto short_enough = [&](size_t i) { return seconds(i) < kPackBelowSeconds; };
  packed.assign(candidates.size(), false);
  std::vector<PackedChunk> windows;
  for (size_t first = 0; first < candidates.size(); ++first) {
    if (packed[first] || !short_enough(first)) continue;
    std::vector<size_t> members = {first};
    double length = seconds(first);
    for (size_t i = first + 1; i < candidates.size(); ++i) {
      if (packed[i] || !short_enough(i) || candidates[i].language != candidates[first].language) continue;
      if (length + kPackGapSeconds + seconds(i) > window) continue;
      members.push_back(i);
      length += kPackGapSeconds + seconds(i);
    }
    if (members.size() < 2) continue;  // alone: it keeps a window of its own
    PackedChunk w;
    for (size_t i : members) {
      const double start = w.audio.samples.empty() ? 0.0 : static_cast<double>(w.audio.samples.size() + gap) / kSampleRate;
      if (!w.audio.samples.empty()) w.audio.samples.insert(w.audio.samples.end(), gap, 0.0f);
      w.audio.samples.insert(w.audio.samples.end(), candidates[i].samples->begin(), candidates[i].samples->end());
      w.items.push_back({candidates[i].source, start, start + seconds(i)});
      packed[i] = true;
    }
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
