// RealtimeAudioDecoder: base64 chunks of each realtime format become 16-kHz samples; chunks may
// split a sample; bad base64 and rates are refused.
#include "server/realtime_audio.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "auris/error.h"

namespace auris::server {
namespace {

using Encoding = RealtimeAudioFormat::Encoding;

std::vector<unsigned char> pcm16_sine(int rate, double hz, int samples) {
  std::vector<unsigned char> bytes;
  for (int i = 0; i < samples; ++i) {
    const auto v = static_cast<int16_t>(std::lround(16000 * std::sin(2 * std::numbers::pi * hz * i / rate)));
    bytes.push_back(static_cast<unsigned char>(v & 0xff));
    bytes.push_back(static_cast<unsigned char>((v >> 8) & 0xff));
  }
  return bytes;
}

int sign_changes(const std::vector<float>& x) {
  int n = 0;
  for (size_t i = 1; i < x.size(); ++i) n += (x[i - 1] < 0) != (x[i] < 0);
  return n;
}

TEST(RealtimeAudioDecoder, Pcm16At24kHzIsResampledTo16kHz) {
  RealtimeAudioDecoder decoder({Encoding::kPcm16, 24000});
  const std::vector<unsigned char> second = pcm16_sine(24000, 440, 24000);
  const std::vector<float> out = decoder.decode(second.data(), second.size());
  EXPECT_NEAR(static_cast<double>(out.size()), 16000, 100);  // the resampler keeps a few samples back
  EXPECT_NEAR(sign_changes(out), 2 * 440, 4);                // the same tone
  float peak = 0;
  for (float v : out) peak = std::max(peak, std::abs(v));
  EXPECT_NEAR(peak, 16000.0 / 32768, 0.02);
}

TEST(RealtimeAudioDecoder, AChunkMaySplitASample) {
  const std::vector<unsigned char> bytes = pcm16_sine(16000, 300, 3200);
  RealtimeAudioDecoder whole({Encoding::kPcm16, 16000});
  const std::vector<float> expected = whole.decode(bytes.data(), bytes.size());
  RealtimeAudioDecoder pieces({Encoding::kPcm16, 16000});
  std::vector<float> got;
  for (size_t at = 0; at < bytes.size(); at += 333) {  // odd-sized chunks
    const std::vector<float> part = pieces.decode(bytes.data() + at, std::min<size_t>(333, bytes.size() - at));
    got.insert(got.end(), part.begin(), part.end());
  }
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_FLOAT_EQ(got[i], expected[i]) << i;
}

TEST(RealtimeAudioDecoder, G711IsDecodedAt8kHz) {
  // G.711's silence codes (mu-law 0xff, A-law 0xd5) and full scale (mu-law 0x80: +32124).
  RealtimeAudioDecoder mu({Encoding::kMuLaw, 0});
  std::vector<unsigned char> silence(8000, 0xff);
  std::vector<float> out = mu.decode(silence.data(), silence.size());
  EXPECT_NEAR(static_cast<double>(out.size()), 16000, 100);
  for (float v : out) ASSERT_NEAR(v, 0, 1e-3);
  std::vector<unsigned char> loud(8000, 0x80);
  out = mu.decode(loud.data(), loud.size());
  ASSERT_FALSE(out.empty());
  EXPECT_NEAR(out[out.size() / 2], 32124.0 / 32768, 0.01);
  RealtimeAudioDecoder a({Encoding::kALaw, 8000});
  std::vector<unsigned char> quiet(8000, 0xd5);
  for (float v : a.decode(quiet.data(), quiet.size())) ASSERT_NEAR(v, 0, 1e-3);
}

TEST(RealtimeAudioDecoder, Base64IsDecodedAndBadTextRefused) {
  RealtimeAudioDecoder decoder({Encoding::kPcm16, 16000});
  const std::vector<float> zeros = decoder.decode_base64("AAAAAAAA");  // six zero bytes: three samples
  EXPECT_LE(zeros.size(), 3u);
  for (float v : zeros) EXPECT_EQ(v, 0);
  EXPECT_TRUE(decoder.decode_base64("").empty());
  EXPECT_THROW(decoder.decode_base64("not base64!"), Error);
  EXPECT_THROW(RealtimeAudioDecoder({Encoding::kPcm16, 4000}), Error);
  EXPECT_THROW(RealtimeAudioDecoder({Encoding::kPcm16, 96000}), Error);
}

}  // namespace
}  // namespace auris::server
