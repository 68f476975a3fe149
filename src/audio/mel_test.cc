#include "audio/mel.h"

#include <gtest/gtest.h>

#include <cmath>

#include "auris/audio.h"
#include "audio/audio_fixtures_for_tests.h"
#include "auris/error.h"

namespace auris {
namespace {

// Each reference case: whisper.audio.log_mel_spectrogram(load_audio(file), n_mels, padding), of which
// the fixture keeps selected frames. Our spectrogram of our decoding must agree to 1e-4.
TEST(LogMel, MatchesWhisperOnReferenceAudio) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const auto index = test::audio_fixture_index();
  ASSERT_FALSE(index["cases"].empty());
  for (const auto& c : index["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const std::vector<float> audio = load_audio(data + "/" + c["file"].get<std::string>());
    const LogMel mel = log_mel_spectrogram(audio, c["n_mels"], c["padding"]);
    ASSERT_EQ(mel.n_mels, c["n_mels"].get<int>());
    ASSERT_EQ(mel.n_frames, c["n_frames"].get<int>());
    const auto reference = test::read_fixture_array<float>(c["mel_file"]);
    const auto frames = c["frames"].get<std::vector<int>>();
    ASSERT_EQ(reference.size(), frames.size() * mel.n_mels);
    float max_diff = 0;
    for (size_t i = 0; i < frames.size(); ++i) {
      for (int m = 0; m < mel.n_mels; ++m) {
        const float ours = mel.data[static_cast<size_t>(m) * mel.n_frames + frames[i]];
        max_diff = std::max(max_diff, std::abs(ours - reference[i * mel.n_mels + m]));
      }
    }
    EXPECT_LT(max_diff, 1e-4f);
  }
}

TEST(LogMel, FrameCountIsSamplesOverHop) {
  std::vector<float> audio(16000, 0.0f);
  for (size_t i = 0; i < audio.size(); ++i) audio[i] = std::sin(0.05f * i);
  EXPECT_EQ(log_mel_spectrogram(audio, 80).n_frames, 100);
  EXPECT_EQ(log_mel_spectrogram(audio, 80, kChunkSamples).n_frames, 100 + kChunkFrames);
  EXPECT_EQ(log_mel_spectrogram(std::span<const float>(audio).first(159), 80).n_frames, 0);
  EXPECT_EQ(log_mel_spectrogram(std::span<const float>(audio).first(3), 80, 400).n_frames, 2);
}

// log10 of the 1e-10 floor is -10; the max-8 clamp leaves it there for silence: (-10 + 4) / 4.
TEST(LogMel, SilenceIsTheFloor) {
  const LogMel mel = log_mel_spectrogram(std::vector<float>(3200, 0.0f), 128);
  ASSERT_EQ(mel.data.size(), 128u * 20);
  for (float v : mel.data) EXPECT_EQ(v, -1.5f);
}

// A pure tone at a bin centre peaks in the mel filter around that frequency, and the dynamic range
// is clamped to 8 decades (2.0 after scaling) below the peak.
TEST(LogMel, ToneLandsInItsFilterAndRangeIsClamped) {
  std::vector<float> audio(8000);
  const double hz = 1000.0;
  for (size_t i = 0; i < audio.size(); ++i) audio[i] = 0.5f * std::sin(2 * 3.14159265358979 * hz * i / kSampleRate);
  const LogMel mel = log_mel_spectrogram(audio, 80);
  const int t = mel.n_frames / 2;
  int best = 0;
  float lowest = 1e9f, highest = -1e9f;
  for (int m = 0; m < 80; ++m) {
    if (mel.data[m * mel.n_frames + t] > mel.data[best * mel.n_frames + t]) best = m;
  }
  for (float v : mel.data) lowest = std::min(lowest, v), highest = std::max(highest, v);
  // 1000 Hz is mel 15 on the slaney scale; filter m peaks at point m + 1 of 82 evenly spaced from
  // 0 to mel(8000 Hz) = 15 + 27 ln 8 / ln 6.4.
  const double spacing = (15.0 + 27.0 * std::log(8.0) / std::log(6.4)) / 81.0;
  EXPECT_NEAR(best, 15.0 / spacing - 1.0, 1.0);
  EXPECT_NEAR(highest - lowest, 2.0f, 1e-5f);
}

TEST(LogMel, RejectsBadArguments) {
  std::vector<float> audio(1000);
  EXPECT_THROW(log_mel_spectrogram(audio, 81), Error);
  EXPECT_THROW(log_mel_spectrogram(audio, 80, -1), Error);
}

TEST(MelWindow, SlicesAndZeroPadsLikePadOrTrim) {
  LogMel mel{2, 5, {0, 1, 2, 3, 4, 10, 11, 12, 13, 14}};
  const LogMel mid = mel_window(mel, 1, 3, 3);
  EXPECT_EQ(mid.data, (std::vector<float>{1, 2, 3, 11, 12, 13}));
  const LogMel tail = mel_window(mel, 3, 4, 4);
  EXPECT_EQ(tail.data, (std::vector<float>{3, 4, 0, 0, 13, 14, 0, 0}));
  const LogMel past = mel_window(mel, 9, 2, 2);
  EXPECT_EQ(past.data, (std::vector<float>{0, 0, 0, 0}));
  // transcribe(): only `length` frames of audio; the rest of the window is zeros.
  const LogMel partial = mel_window(mel, 1, 2, 4);
  EXPECT_EQ(partial.data, (std::vector<float>{1, 2, 0, 0, 11, 12, 0, 0}));
  EXPECT_EQ(mel_window(mel, 0).n_frames, kChunkFrames);
  EXPECT_THROW(mel_window(mel, -1, 3), Error);
}

}  // namespace
}  // namespace auris
