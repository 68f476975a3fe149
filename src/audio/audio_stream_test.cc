#include "audio/audio_stream.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "auris/audio.h"
#include "audio/audio_fixtures_for_tests.h"
#include "auris/error.h"
#include "test_support.h"

namespace auris {
namespace {

std::vector<float> read_in_blocks(AudioStream& stream, size_t block) {
  std::vector<float> out;
  while (true) {
    const size_t before = out.size();
    const size_t n = stream.read(out, block);
    EXPECT_EQ(out.size(), before + n);
    EXPECT_LE(n, block);
    if (n == 0) return out;
  }
}

// Whatever the block size, the stream gives openai's load_audio samples (the fixture's count and
// strided samples) and exactly load_audio's floats.
TEST(AudioStream, BlocksConcatenateToTheReferenceSamples) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const auto index = test::audio_fixture_index();
  const auto stride = index["sample_stride"].get<size_t>();
  for (const auto& ref : index["audio"]) {
    const std::string path = data + "/" + ref["file"].get<std::string>();
    SCOPED_TRACE(path);
    const auto strided = test::read_fixture_array<int16_t>(ref["samples_file"]);
    const std::vector<float> whole = load_audio(path);
    for (size_t block : {1u, 7u, 160u, 4096u, 1u << 20}) {
      SCOPED_TRACE(block);
      AudioStream stream(path);
      const std::vector<float> samples = read_in_blocks(stream, block);
      ASSERT_EQ(samples.size(), ref["n_samples"].get<size_t>());
      for (size_t i = 0; i < strided.size(); ++i) ASSERT_EQ(samples[i * stride], strided[i] / 32768.0f) << i * stride;
      ASSERT_EQ(std::memcmp(samples.data(), whole.data(), samples.size() * sizeof(float)), 0);
    }
  }
}

TEST(AudioStream, S16IsTheFloatTimes32768) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const std::string path = data + "/audio/digits-8k/7_jackson_0.wav";
  AudioStream stream(path);
  std::vector<int16_t> s16;
  while (stream.read_s16(s16, 1000) > 0) {
  }
  const std::vector<float> floats = load_audio(path);
  ASSERT_EQ(s16.size(), floats.size());
  for (size_t i = 0; i < s16.size(); ++i) ASSERT_EQ(s16[i] / 32768.0f, floats[i]) << i;
}

TEST(AudioStream, EndIsSticky) {
  AURIS_REQUIRE_SHARED_DATA(data);
  AudioStream stream(data + "/audio/digits-8k/0_george_0.wav");
  std::vector<float> out;
  EXPECT_EQ(stream.read(out, 0), 0u);  // asking for nothing is not the end
  EXPECT_EQ(read_in_blocks(stream, 999).size(), test::reference_audio("audio/digits-8k/0_george_0.wav")["n_samples"]);
  EXPECT_EQ(stream.read(out, 100), 0u);
  EXPECT_EQ(stream.read(out, 100), 0u);
  EXPECT_TRUE(out.empty());
}

std::string stream_error(const std::string& path) {
  try {
    AudioStream stream(path);
    std::vector<float> out;
    while (stream.read(out, 4096) > 0) {
    }
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Bad input fails with load_audio's message (load_audio is the stream read to the end; this pins
// that a stream read block by block reports the same).
TEST(AudioStream, ErrorsAreLoadAudios) {
  const std::string dir = test::temp_dir();
  std::ofstream(dir + "/empty.wav").flush();
  std::ofstream(dir + "/notes.mp3") << std::string(4000, 'x');
  std::ofstream(dir + "/captions.srt") << "1\n00:00:00,000 --> 00:00:01,500\nHello.\n\n";
  for (const std::string& path : {dir + "/missing.flac", dir, dir + "/empty.wav", dir + "/notes.mp3",
                                 dir + "/captions.srt", std::string()}) {
    SCOPED_TRACE(path);
    const std::string e = stream_error(path);
    EXPECT_NE(e, "(no error)");
    EXPECT_EQ(e, test::error_of([&] { load_audio(path); }));
  }
}

}  // namespace
}  // namespace auris
