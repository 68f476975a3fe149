// Transcription with voice activity detection (TranscribeOptions::vad, faster-whisper's vad_filter):
// only the speech is transcribed, every time comes back on the original timeline, noise and tones
// give no text, and bad parameters or models are refused before any work. (That memory stays
// bounded for long files is checked on the command, in its own process: tools/cli/cli_test.cc.)
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "auris/audio.h"
#include "api/engine_access.h"
#include "auris/error.h"
#include "auris/transcribe.h"
#include "test_support.h"
#include "vad/vad_fixtures_for_tests.h"

namespace auris {
namespace {

constexpr int kRate = 16000;

// Lower-case letters, digits and single spaces: the words without punctuation or casing.
std::string bare(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (c == ' ' && !out.empty() && out.back() != ' ') out += ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

class TranscriberVad : public test::TinyEnSuite {
 protected:
  void SetUp() override {
    TinyEnSuite::SetUp();
    if (IsSkipped()) return;
    jfk_ = load_audio(data_ + "/audio/jfk.flac");
  }
  // Greedy, as fast as it gets; word timestamps to place every word.
  TranscribeOptions options(bool vad = true) const {
    TranscribeOptions o;
    o.word_timestamps = true;
    if (vad) {
      o.vad = VadParameters();
      o.vad->model = test::vad_model_file(data_);
    }
    return o;
  }
  static std::vector<Word> words_of(const Transcript& t) {
    std::vector<Word> words;
    for (const Segment& s : t.segments) words.insert(words.end(), s.words.begin(), s.words.end());
    return words;
  }

  std::vector<float> jfk_;
};

// jfk with 20 s of digital silence in its pause after "Americans" (2.7 s): the silence is not
// transcribed, and the words come back where they are in the audio: those after the gap 20 s later
// than in jfk alone, the same words. Read from a file (streamed) it is the same transcript. (The
// mapping itself is checked exactly in transcribe/vad_filter_test.cc.)
TEST_F(TranscriberVad, TimesAfterRemovedSilenceComeBackShifted) {
  constexpr size_t kCut = 43200;  // 2.7 s
  constexpr double kGap = 20.0;
  std::vector<float> gapped(jfk_.begin(), jfk_.begin() + kCut);
  gapped.resize(gapped.size() + static_cast<size_t>(kGap * kRate), 0.0f);
  gapped.insert(gapped.end(), jfk_.begin() + kCut, jfk_.end());

  Transcriber t(model_);
  const Transcript alone = t.transcribe(jfk_, kRate, options(false));
  std::vector<Segment> seen;
  TranscribeOptions vad = options();
  vad.on_segment = [&](const Segment& s) { seen.push_back(s); };
  const EngineCounters before = engine_counters(t);
  const Transcript result = t.transcribe(gapped, kRate, vad);
  EXPECT_EQ(engine_counters(t).encoder_windows - before.encoder_windows, 1) << "the speech alone is one window";

  EXPECT_DOUBLE_EQ(result.duration, static_cast<double>(gapped.size()) / kRate);
  EXPECT_LT(result.duration_after_vad, 11.5);
  EXPECT_GT(result.duration_after_vad, 10.0);
  EXPECT_DOUBLE_EQ(alone.duration, alone.duration_after_vad);
  EXPECT_EQ(bare(result.text), bare(alone.text)) << result.text << "\n" << alone.text;
  for (const Segment& s : result.segments) {
    ASSERT_FALSE(s.words.empty());
    EXPECT_EQ(s.start, s.words.front().start);
    EXPECT_EQ(s.end, s.words.back().end);
  }
  const std::vector<Word> words = words_of(result), original = words_of(alone);
  ASSERT_EQ(words.size(), original.size());
  size_t shifted = 0;
  for (size_t k = 0; k < words.size(); ++k) {
    EXPECT_EQ(bare(words[k].word), bare(original[k].word));
    // tiny.en's word edges move by a few tenths where a pause is shortened (the VAD keeps 0.4 s of
    // it on each side): far less than the gap.
    const double shift = (original[k].start + original[k].end) / 2 >= 2.7 ? kGap : 0.0;
    shifted += shift > 0;
    EXPECT_NEAR(words[k].start, original[k].start + shift, 0.6) << words[k].word;
    EXPECT_NEAR(words[k].end, original[k].end + shift, 0.6) << words[k].word;
  }
  EXPECT_GE(shifted, 15u);
  ASSERT_EQ(seen.size(), result.segments.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].start, result.segments[i].start) << "on_segment gets the original audio's times";
    EXPECT_EQ(seen[i].end, result.segments[i].end);
  }

  const std::string wav = test::write_wav(test::temp_dir() + "/gapped.wav", gapped);
  const Transcript streamed = t.transcribe_file(wav, vad);
  EXPECT_EQ(streamed.text, result.text);
  EXPECT_EQ(streamed.duration, result.duration);
  EXPECT_EQ(streamed.duration_after_vad, result.duration_after_vad);
  ASSERT_EQ(streamed.segments.size(), result.segments.size());
  for (size_t i = 0; i < streamed.segments.size(); ++i) {
    EXPECT_EQ(streamed.segments[i].start, result.segments[i].start);
    EXPECT_EQ(streamed.segments[i].end, result.segments[i].end);
    EXPECT_EQ(streamed.segments[i].tokens, result.segments[i].tokens);
  }
}

// Digital silence, in memory or from a file: an empty transcript, no window decoded.
TEST_F(TranscriberVad, NoSpeechGivesAnEmptyTranscript) {
  Transcriber t(model_);
  const std::vector<float> silence(5 * kRate, 0.0f);
  const Transcript in_memory = t.transcribe(silence, kRate, options());
  const Transcript from_file = t.transcribe_file(test::write_wav(test::temp_dir() + "/silence.wav", silence), options());
  for (const Transcript& r : {in_memory, from_file}) {
    EXPECT_TRUE(r.segments.empty());
    EXPECT_EQ(r.text, "");
    EXPECT_EQ(r.language, "en");
    EXPECT_DOUBLE_EQ(r.duration, 5.0);
    EXPECT_EQ(r.duration_after_vad, 0.0);
  }
  EXPECT_EQ(engine_counters(t).encoder_windows, 0);
}

TEST_F(TranscriberVad, BadParametersAndModelsAreRefusedBeforeWork) {
  Transcriber t(model_);
  auto error = [&](auto change) {
    TranscribeOptions o = options();
    change(o);
    return test::error_of([&] { t.transcribe(jfk_, kRate, o); });
  };
  EXPECT_NE(error([](auto& o) { o.vad->threshold = 1.5; }).find("threshold = 1.5 is out of range: allowed 0 to 1"),
            std::string::npos);
  EXPECT_NE(error([](auto& o) { o.vad->neg_threshold = 0.9; }).find("neg_threshold"), std::string::npos);
  EXPECT_NE(error([](auto& o) { o.vad->min_silence_duration_ms = -1; }).find("min_silence_duration_ms"), std::string::npos);
  EXPECT_NE(error([](auto& o) { o.vad->speech_pad_ms = -10; }).find("speech_pad_ms"), std::string::npos);
  EXPECT_NE(error([](auto& o) { o.clip_timestamps = {1.0, 5.0}; }).find("clip_timestamps"), std::string::npos);
  EXPECT_NE(error([](auto& o) { o.temperatures.clear(); }).find("temperature"), std::string::npos);
  EXPECT_EQ(error([](auto& o) { o.clip_timestamps = {0.0}; }), "(no error)") << "0 is the whole audio";
  const long long windows = engine_counters(t).encoder_windows;

  // A name not in the cache says how to get it; a truncated file says it is truncated and what to do.
  const std::string dir = test::temp_dir();
  setenv("AURIS_MODEL_DIR", dir.c_str(), 1);
  const std::string missing = error([](auto& o) { o.vad->model = "silero-vad"; });
  unsetenv("AURIS_MODEL_DIR");
  EXPECT_NE(missing.find("auris download silero-vad"), std::string::npos) << missing;
  {
    std::ifstream in(test::vad_model_file(data_), std::ios::binary);
    std::string head(300000, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(dir + "/truncated.bin", std::ios::binary) << head;
  }
  VadParameters truncated;
  truncated.model = dir + "/truncated.bin";
  const std::string e = test::error_of([&] { validate(truncated); });
  EXPECT_NE(e.find("truncated"), std::string::npos) << e;
  EXPECT_NE(e.find("auris download silero-vad"), std::string::npos) << e;
  EXPECT_EQ(error([&](auto& o) { o.vad->model = truncated.model; }), e);
  EXPECT_EQ(engine_counters(t).encoder_windows, windows) << "no window may be encoded for a refused request";
}

bool have_sox() { return std::system("sox --version >/dev/null 2>&1") == 0; }

// sox's noise (-R: the same each run) and tones, with jfk, in a temporary directory.
std::string sox(const std::string& dir, const std::string& name, const std::string& arguments) {
  const std::string command = "cd '" + dir + "' && sox -R " + arguments + " 2>&1";
  if (std::system(command.c_str()) != 0) ADD_FAILURE() << "failed: " << command;
  return dir + "/" + name;
}

// jfk, 60 s of pink noise, jfk, 60 s of pink noise: without VAD, tiny.en and base both write text
// into the noise (docs/BENCHMARKS.md); with it, every word and segment lies within the speech.
TEST_F(TranscriberVad, NoTextInNoiseBetweenSpeech) {
  if (!have_sox()) GTEST_SKIP() << "sox not installed (scripts/install_deps.sh installs it)";
  const std::string dir = test::temp_dir();
  test::write_wav(dir + "/jfk.wav", jfk_);
  sox(dir, "noise.wav", "-n -r 16000 -c 1 -b 16 noise.wav synth 60 pinknoise vol 0.3");
  const std::string path = sox(dir, "speech-noise.wav", "jfk.wav noise.wav jfk.wav noise.wav speech-noise.wav");
  const double length = static_cast<double>(jfk_.size()) / kRate;
  const double spans[2][2] = {{0.0, length}, {length + 60.0, 2 * length + 60.0}};
  auto in_speech = [&](double time) {
    for (const auto& span : spans)
      if (time >= span[0] - 0.5 && time <= span[1] + 0.5) return true;
    return false;
  };

  Transcriber t(model_);
  const Transcript result = t.transcribe_file(path, options());
  EXPECT_DOUBLE_EQ(result.duration, 2 * length + 120.0);
  EXPECT_LT(result.duration_after_vad, 2 * length + 2 * 0.8 + 0.1);
  int words_in[2] = {0, 0};
  for (const Segment& s : result.segments) {
    EXPECT_TRUE(in_speech(s.start) && in_speech(s.end)) << s.start << " - " << s.end << s.text;
    for (const Word& w : s.words) {
      EXPECT_TRUE(in_speech(w.start) && in_speech(w.end)) << w.word << " at " << w.start;
      ++words_in[w.start < length + 30.0 ? 0 : 1];
    }
  }
  EXPECT_GE(words_in[0], 20) << result.text;
  EXPECT_GE(words_in[1], 20) << result.text;
}

// 40 s of pink noise then 40 s of a 440 Hz tone: no speech, no text.
TEST_F(TranscriberVad, NoiseAndToneGiveNothing) {
  if (!have_sox()) GTEST_SKIP() << "sox not installed (scripts/install_deps.sh installs it)";
  const std::string dir = test::temp_dir();
  sox(dir, "noise.wav", "-n -r 16000 -c 1 -b 16 noise.wav synth 40 pinknoise vol 0.3");
  sox(dir, "tone.wav", "-n -r 16000 -c 1 -b 16 tone.wav synth 40 sine 440 vol 0.3");
  const std::string path = sox(dir, "noise-tone.wav", "noise.wav tone.wav noise-tone.wav");
  Transcriber t(model_);
  const Transcript result = t.transcribe_file(path, options());
  EXPECT_TRUE(result.segments.empty()) << result.text;
  EXPECT_DOUBLE_EQ(result.duration, 80.0);
  EXPECT_EQ(result.duration_after_vad, 0.0);
}

}  // namespace
}  // namespace auris
