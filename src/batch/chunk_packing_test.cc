// Packing's bookkeeping on made-up chunks and segments: which chunks share a window and where each
// lies, and how a window's words go back to their chunks.
#include "batch/chunk_packing.h"

#include <gtest/gtest.h>

#include "test_support.h"
#include "tokenizer/test_tokenizers.h"

namespace auris {
namespace {

TEST(PackChunks, FillsWindowsInOrderWithGapsAndOneLanguageEach) {
  const double lengths[] = {5, 25, 8, 6, 10, 4};
  const char* languages[] = {"en", "en", "en", "de", "en", "en"};
  std::vector<PackCandidate> c;
  for (size_t i = 0; i < 6; ++i) c.push_back({i + 100, static_cast<int64_t>(lengths[i] * 16000), languages[i]});
  std::vector<bool> packed;
  const std::vector<PackedChunk> windows = pack_chunks(c, packed);
  // 25 s is too long to pack; 5 + 1 + 8 + 1 + 10 + 1 + 4 = 30 s of English; the German one is alone.
  ASSERT_EQ(windows.size(), 1u);
  const std::vector<PackedItem>& items = windows[0].items;
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].source, 100u);
  EXPECT_EQ(items[1].source, 102u);
  EXPECT_DOUBLE_EQ(items[1].start_s, 6.0);
  EXPECT_DOUBLE_EQ(items[1].end_s, 14.0);
  EXPECT_EQ(items[3].source, 105u);
  EXPECT_DOUBLE_EQ(items[3].end_s, 30.0);
  EXPECT_EQ(packed, (std::vector<bool>{true, false, true, false, true, true}));

  const std::vector<float> audio = lay_out(windows[0], [&](size_t source) {
    return std::vector<float>(static_cast<size_t>(lengths[source - 100] * 16000), 0.5f);
  });
  EXPECT_EQ(audio.size(), static_cast<size_t>(30 * 16000));
  EXPECT_EQ(audio[static_cast<size_t>(5.5 * 16000)], 0.0f) << "silence between chunks";
  EXPECT_EQ(audio[static_cast<size_t>(6.5 * 16000)], 0.5f);
}

Segment segment(double start, double end, std::vector<Word> words) {
  Segment s;
  s.start = start;
  s.end = end;
  s.tokens = {1, 2, 3};
  for (const Word& w : words) s.text += w.word;
  s.words = std::move(words);
  return s;
}

TEST(SplitPacked, WordsGoToTheChunkTheirEndLiesIn) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const Tokenizer tokenizer(test::tiktoken_vocab(data, "gpt2"), 99);
  const std::vector<PackedItem> items = {{7, 0.0, 4.0}, {9, 5.0, 9.0}};
  const std::vector<Segment> segments = {
      segment(0.0, 3.0, {{" Hello", 0.1, 0.5, 0.9}, {" there.", 0.6, 1.2, 0.9}}),
      // One segment over the gap: its words are shared out, its text encoded again per part.
      segment(3.0, 7.0,
              {{" Good", 3.1, 3.4, 0.9},
               // Ends in the gap: its start, in the first chunk, decides.
               {" bye", 3.5, 4.2, 0.9},
               // Wholly in the gap: the chunk nearest its middle (4.35 s), the first.
               {" um", 4.3, 4.4, 0.9},
               // Starts in the first chunk, as the alignment gives it the silence before it, and ends in
               // the second: spoken in the second, though its middle (4.55 s) is nearer the first.
               {" in", 3.9, 5.2, 0.9},
               {" morning.", 5.2, 5.9, 0.9}}),
  };
  const std::vector<std::vector<Segment>> parts = split_packed(segments, items, tokenizer, /*keep_words=*/true);
  ASSERT_EQ(parts.size(), 2u);
  ASSERT_EQ(parts[0].size(), 2u);
  EXPECT_EQ(parts[0][0].text, " Hello there.");
  EXPECT_EQ(parts[0][0].tokens, (std::vector<int>{1, 2, 3})) << "a whole segment keeps its tokens";
  EXPECT_EQ(parts[0][1].text, " Good bye um");
  EXPECT_EQ(parts[0][1].tokens, tokenizer.encode(" Good bye um"));
  ASSERT_EQ(parts[1].size(), 1u);
  EXPECT_EQ(parts[1][0].text, " in morning.");
  EXPECT_NEAR(parts[1][0].start, 0.0, 1e-9) << "relative to the second chunk, clamped to its start";
  EXPECT_NEAR(parts[1][0].words[1].end, 0.9, 1e-9);
  EXPECT_NEAR(parts[0][1].end, 4.0, 1e-9) << "clamped to the first chunk's end";
  EXPECT_EQ(parts[0][1].words.size(), 3u);
  EXPECT_EQ(split_packed(segments, items, tokenizer, false)[0][0].words.size(), 0u);
}

}  // namespace
}  // namespace auris
