#include "audio/streaming_mel.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <utility>
#include <vector>

#include "auris/audio.h"
#include "audio/mel_source.h"
#include "auris/error.h"
#include "test_support.h"

namespace auris {
namespace {

// Windows at non-decreasing offsets like the seek loop's, plus irregular steps and lengths (a
// fixed LCG so failures reproduce), then the last frames and past the end of the padded spectrogram.
std::vector<std::pair<int, int>> window_requests(int content_frames) {
  const int total = content_frames + kChunkFrames;
  std::vector<std::pair<int, int>> requests = {{0, std::min(kChunkFrames, content_frames)}, {0, kChunkFrames}, {0, 1}};
  uint32_t x = 2024;
  auto next = [&x](int bound) { return static_cast<int>((x = x * 1664525u + 1013904223u) >> 8) % bound; };
  const int steps[] = {0, 1, 159, 160, 1499, 2999, 3000};
  const int lengths[] = {kChunkFrames, 1, 0, 2500, 4000};
  int offset = 0;
  while (offset + 3000 < total - 3001) {
    offset += steps[next(7)];
    const int length = next(3) == 0 ? std::min(kChunkFrames, std::max(0, content_frames - offset)) : lengths[next(5)];
    requests.emplace_back(offset, length);
  }
  for (int o : {total - 3001, total - 3000, total - 2999, total - 1, total, total + 5}) {
    if (o >= requests.back().first) requests.emplace_back(o, kChunkFrames);
  }
  return requests;
}

void expect_same_windows(MelSource& streamed, MelSource& in_memory) {
  ASSERT_EQ(streamed.n_mels(), in_memory.n_mels());
  ASSERT_EQ(streamed.content_frames(), in_memory.content_frames());
  for (const auto& [offset, length] : window_requests(in_memory.content_frames())) {
    const LogMel a = streamed.window(offset, length);
    const LogMel b = in_memory.window(offset, length);
    ASSERT_EQ(a.n_mels, b.n_mels);
    ASSERT_EQ(a.n_frames, b.n_frames);
    ASSERT_EQ(a.data.size(), b.data.size());
    ASSERT_EQ(std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(float)), 0)
        << "window at " << offset << ", length " << length;
  }
}

// Both ways a window is made: from the frames the first pass kept, and (keeping none) from a second
// decoding of the file.
constexpr size_t kKeepNothing = 0;

void expect_streams_like_memory(const std::string& path, int n_mels) {
  const std::vector<float> samples = load_audio(path);
  InMemoryMel in_memory(samples, n_mels);
  for (size_t keep_bytes : {StreamingMel::kDefaultKeepBytes, kKeepNothing}) {
    SCOPED_TRACE(path + ", " + std::to_string(n_mels) + " mels, keeping " + std::to_string(keep_bytes) + " bytes");
    StreamingMel streamed(path, n_mels, keep_bytes);
    EXPECT_EQ(streamed.content_frames(), static_cast<int>(samples.size() / kHopLength));
    expect_same_windows(streamed, in_memory);
  }
}

TEST(StreamingMel, EqualsInMemoryForJfk) {
  AURIS_REQUIRE_SHARED_DATA(data);
  expect_streams_like_memory(data + "/audio/jfk.flac", 80);
  expect_streams_like_memory(data + "/audio/jfk.flac", 128);
}

TEST(StreamingMel, EqualsInMemoryForEightKilohertzDigit) {
  AURIS_REQUIRE_SHARED_DATA(data);
  expect_streams_like_memory(data + "/audio/digits-8k/0_george_0.wav", 80);
}

// 232 s: many windows, the sample buffer compacted many times, a global max far from the start.
TEST(StreamingMel, EqualsInMemoryForLongform) {
  AURIS_REQUIRE_SHARED_DATA(data);
  expect_streams_like_memory(data + "/audio/longform/hifitts-dev-concat.flac", 80);
}

// A 16 kHz mono s16 WAV holding exactly n samples of a deterministic loud-and-quiet signal.
std::string write_wav(const std::string& path, int n) {
  uint32_t x = 7;
  return test::write_wav(path, n, [&x](int64_t i) {
    x = x * 1664525u + 1013904223u;
    const double tone = 9000.0 * std::sin(0.07 * static_cast<double>(i)) * (i % 4000 < 2000 ? 1.0 : 0.01);
    return static_cast<int16_t>(tone + static_cast<int>(x >> 24) - 128);
  });
}

// Lengths that are and are not multiples of the hop, shorter than the FFT (400) and than the
// reflection (201), and a single sample: the padding and frame count edges.
TEST(StreamingMel, EqualsInMemoryAtLengthEdges) {
  const std::string dir = test::temp_dir();
  for (int n : {1, 100, 200, 201, 399, 400, 3200, 3201, 48000, 48159, 480000, 480161}) {
    const std::string path = write_wav(dir + "/n" + std::to_string(n) + ".wav", n);
    ASSERT_EQ(load_audio(path).size(), static_cast<size_t>(n));
    expect_streams_like_memory(path, 80);
  }
}

// Standard input is read once: the windows come from the kept frames, or from the spool, after
// stdin is gone.
TEST(StreamingMel, ReadsStandardInputOnce) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const std::string path = data + "/audio/jfk.flac";
  InMemoryMel in_memory(load_audio(path), 80);
  for (size_t keep_bytes : {StreamingMel::kDefaultKeepBytes, kKeepNothing}) {
    SCOPED_TRACE("keeping " + std::to_string(keep_bytes) + " bytes");
    std::unique_ptr<StreamingMel> streamed;
    ASSERT_EQ(test::error_of_with_stdin(path, [&] { streamed = std::make_unique<StreamingMel>("-", 80, keep_bytes); }),
              "(no error)");
    expect_same_windows(*streamed, in_memory);
  }
}

// A recording one frame too long to keep is decoded again for its windows, bit for bit the same.
TEST(StreamingMel, KeepsFramesOnlyWithinItsBudget) {
  const std::string path = write_wav(test::temp_dir() + "/budget.wav", 48000);
  InMemoryMel in_memory(load_audio(path), 80);
  const size_t frames = static_cast<size_t>(in_memory.content_frames()) + kChunkFrames;
  for (size_t keep_frames : {frames - 1, frames}) {
    SCOPED_TRACE("room for " + std::to_string(keep_frames) + " of " + std::to_string(frames) + " frames");
    StreamingMel streamed(path, 80, keep_frames * 80 * sizeof(float));
    expect_same_windows(streamed, in_memory);
  }
}

// A window behind the last one, with nothing kept, reads the audio again: the same frames.
TEST(StreamingMel, WindowsThatGoBackReadTheAudioAgain) {
  const std::string path = write_wav(test::temp_dir() + "/tone.wav", 16000 * 70);
  InMemoryMel in_memory(load_audio(path), 80);
  StreamingMel streamed(path, 80, kKeepNothing);
  const LogMel later = streamed.window(3000, kChunkFrames);
  EXPECT_EQ(later.data, in_memory.window(3000, kChunkFrames).data);
  EXPECT_EQ(streamed.window(0, kChunkFrames).data, in_memory.window(0, kChunkFrames).data);
  EXPECT_EQ(streamed.window(2999, kChunkFrames).data, in_memory.window(2999, kChunkFrames).data);
  EXPECT_EQ(streamed.window(6000, kChunkFrames).data, in_memory.window(6000, kChunkFrames).data);
  EXPECT_THROW(streamed.window(-1, kChunkFrames), Error);
  EXPECT_THROW(streamed.window(3100, -1), Error);
}

TEST(StreamingMel, RejectsUnsupportedMelCounts) {
  const std::string path = write_wav(test::temp_dir() + "/tone.wav", 1600);
  EXPECT_THROW(StreamingMel(path, 81), Error);
  EXPECT_THROW(StreamingMel(path, 0), Error);
}

std::string streaming_error(const std::string& path) {
  try {
    StreamingMel mel(path, 80);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(StreamingMel, ErrorsAreLoadAudios) {
  const std::string dir = test::temp_dir();
  std::ofstream(dir + "/empty.flac").flush();
  std::ofstream(dir + "/notes.wav") << std::string(4000, 'x');
  std::ofstream(dir + "/captions.srt") << "1\n00:00:00,000 --> 00:00:01,500\nHello.\n\n";
  write_wav(dir + "/header-only.wav", 0);
  for (const std::string& path : {dir + "/missing.flac", dir, dir + "/empty.flac", dir + "/notes.wav",
                                 dir + "/captions.srt", dir + "/header-only.wav", std::string()}) {
    SCOPED_TRACE(path);
    const std::string e = streaming_error(path);
    EXPECT_NE(e, "(no error)");
    EXPECT_EQ(e, test::error_of([&] { load_audio(path); }));
  }
}

TEST(StreamingMel, EmptyStandardInputIsLoadAudiosError) {
  auto with_empty_stdin = [](auto&& f) {
    std::string e;
    test::error_of_with_stdin("/dev/null", [&] { e = f("-"); });
    return e;
  };
  const std::string streamed = with_empty_stdin(streaming_error);
  EXPECT_NE(streamed.find("standard input"), std::string::npos) << streamed;
  EXPECT_EQ(streamed, with_empty_stdin([](const std::string& path) { return test::error_of([&] { load_audio(path); }); }));
}

}  // namespace
}  // namespace auris
