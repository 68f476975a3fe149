// StreamingTranscriber end to end with tiny.en: the committed text of a stream against the offline
// transcript of the same audio, silence, the live VAD closing utterances, a stream cut mid-word,
// and bad options and samples. The policy itself is tested apart (local_agreement_test.cc).
#include "auris/stream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "auris/audio.h"
#include "auris/error.h"
#include "auris/text.h"
#include "test_support.h"
#include "vad/vad_fixtures_for_tests.h"

namespace auris {
namespace {

constexpr int kRate = 16000;

std::string text_of(const std::vector<Word>& words) {
  std::string text;
  for (const Word& w : words) text += w.word;
  return text;
}

class StreamingTranscriberTest : public test::TinyEnSuite {
 protected:

  // Three hifitts sentences with a second of silence after each: about 12 s of speech.
  std::vector<float> sentences() const {
    std::vector<float> audio;
    for (const char* name : {"presentpictureofnsw_02_mann_0532", "swag_06_tompkins_0883", "roots_19_morris_0392"}) {
      const std::vector<float> clip = load_audio(data_ + "/audio/hifitts-6097/audio/" + name + ".wav");
      audio.insert(audio.end(), clip.begin(), clip.end());
      audio.insert(audio.end(), kRate, 0.0f);
    }
    return audio;
  }

  // Pushes the audio step by step, updating after each, then finishes; returns every committed
  // word and checks each update's words come in order. `decodes`: after each step, the audio
  // received (s) and the decodes made so far.
  std::vector<Word> stream(StreamingTranscriber& s, const std::vector<float>& audio, double step_seconds,
                           std::vector<StreamUpdate>* updates = nullptr,
                           std::vector<std::pair<double, int>>* decodes = nullptr) {
    std::vector<Word> committed;
    const size_t step = static_cast<size_t>(step_seconds * kRate);
    auto take = [&](const StreamUpdate& u) {
      for (const Word& w : u.committed) {
        if (!committed.empty()) {
          EXPECT_GE(w.start, committed.back().start - 1e-9) << w.word;
        }
        EXPECT_LE(w.start, w.end);
        committed.push_back(w);
      }
      if (updates) updates->push_back(u);
    };
    for (size_t i = 0; i < audio.size(); i += step) {
      s.push(std::span<const float>(audio).subspan(i, std::min(step, audio.size() - i)));
      if (s.ready()) take(s.update());
      if (decodes) decodes->emplace_back(s.stats().received_seconds, s.stats().decodes);
    }
    take(s.finish());
    return committed;
  }

  static StreamOptions greedy(double step_seconds) {
    StreamOptions o;
    o.transcribe.decoding.beam_size.reset();
    o.step_seconds = step_seconds;
    return o;
  }

};

TEST_F(StreamingTranscriberTest, CommittedTextMatchesTheOfflineTranscript) {
  const std::vector<float> audio = sentences();
  StreamingTranscriber s(model_, greedy(1.0));
  const std::vector<Word> committed = stream(s, audio, 1.0);
  Transcriber offline(model_);
  TranscribeOptions o;
  o.decoding.beam_size.reset();
  const Transcript reference = offline.transcribe(audio, kRate, o);
  const WordErrorRate wer = word_error_rate({reference.text}, {text_of(committed)});
  EXPECT_LE(wer.rate, 0.1) << "offline: " << reference.text << "\nstream: " << text_of(committed);
  EXPECT_GT(committed.size(), 20u);
  EXPECT_LE(committed.back().end, audio.size() / double(kRate) + 0.5);
  const StreamStats stats = s.stats();
  EXPECT_NEAR(stats.received_seconds, audio.size() / double(kRate), 1e-9);
  EXPECT_GE(stats.decodes, 9);  // a decode per second of audio
  EXPECT_EQ(stats.buffered_seconds, 0.0);  // finish() empties the buffer
  // Re-decodes took the committed words as decided, rather than decoding them again.
  EXPECT_GT(stats.forced_tokens, 2 * static_cast<long long>(committed.size()));
}

TEST_F(StreamingTranscriberTest, SilenceCommitsNothingAndTheBufferStaysBounded) {
  StreamingTranscriber s(model_, greedy(5.0));
  // A quiet room: noise about 60 dB below full scale, not digital zeros.
  std::vector<float> silence(45 * kRate);
  uint32_t x = 1;
  for (float& v : silence) {
    x = x * 1664525u + 1013904223u;
    v = static_cast<float>(static_cast<int>(x >> 26) - 32) / 32768.0f;
  }
  std::vector<StreamUpdate> updates;
  EXPECT_TRUE(stream(s, silence, 5.0, &updates).empty());
  for (const StreamUpdate& u : updates) EXPECT_TRUE(u.tentative.empty());
  EXPECT_EQ(s.stats().decodes, 9);
}

TEST_F(StreamingTranscriberTest, TheBufferIsCutSoEachDecodeStaysShort) {
  // 34 s of speech in 2-s steps: without cuts the last decodes would take all 34 s.
  std::vector<float> audio;
  while (audio.size() < 34u * kRate) {
    const std::vector<float> more = sentences();
    audio.insert(audio.end(), more.begin(), more.end());
  }
  StreamingTranscriber s(model_, greedy(2.0));
  const size_t step = 2 * kRate;
  double longest = 0;
  for (size_t i = 0; i < audio.size(); i += step) {
    s.push(std::span<const float>(audio).subspan(i, std::min(step, audio.size() - i)));
    if (s.ready()) s.update();
    longest = std::max(longest, s.stats().buffered_seconds);
  }
  EXPECT_LT(longest, 29.5);
  EXPECT_LT(s.stats().decoded_seconds / s.stats().decodes, 20.0);
}

TEST_F(StreamingTranscriberTest, LiveVadClosesUtterancesAndSkipsSilence) {
  // Speech, 4 s of silence, speech: two utterances; the silence is not decoded (the first
  // utterance stays in the buffer as context, so the second's decodes hear it again).
  std::vector<float> audio = load_audio(data_ + "/audio/jfk.flac");
  const size_t speech = audio.size();
  audio.insert(audio.end(), 4 * kRate, 0.0f);
  const std::vector<float> again = load_audio(data_ + "/audio/jfk.flac");
  audio.insert(audio.end(), again.begin(), again.end());
  StreamOptions o = greedy(1.0);
  o.vad = VadParameters{};
  o.vad->model = test::vad_model_file(data_);
  o.vad->min_silence_duration_ms = 500;
  o.vad->speech_pad_ms = 100;
  StreamingTranscriber s(model_, o);
  std::vector<StreamUpdate> updates;
  std::vector<std::pair<double, int>> decodes;
  const std::vector<Word> committed = stream(s, audio, 0.5, &updates, &decodes);
  int ends = 0, starts = 0;
  bool open = false;
  bool second_started = false;
  for (const StreamUpdate& u : updates) {
    ends += u.utterance_ended;
    if (u.speech_started) {  // a start comes before its words, and only once the last utterance closed
      EXPECT_FALSE(open) << "speech started at " << *u.speech_started << " inside an utterance";
      open = true;
      ++starts;
      const double t = *u.speech_started, resumed = speech / double(kRate) + 4;
      EXPECT_FALSE(t > speech / double(kRate) + 0.5 && t < resumed - 0.5) << "speech started in the silence, at " << t;
      second_started = second_started || std::abs(t - resumed) < 0.5;
    }
    if (u.utterance_ended) open = false;
  }
  EXPECT_GE(ends, 3);  // at least the two utterances (jfk pauses between its phrases), and finish()
  EXPECT_GE(starts, 2);
  EXPECT_TRUE(second_started);
  const std::string bare = normalize_english(text_of(committed));
  const std::string once = normalize_english(
      "And so, my fellow Americans, ask not what your country can do for you, ask what you can do for your country.");
  EXPECT_EQ(bare, once + " " + once);
  for (const Word& w : committed)  // nothing inside the silence
    EXPECT_FALSE(w.start > speech / double(kRate) + 0.5 && w.end < speech / double(kRate) + 3.5) << w.word;
  // From a second into the silence (the utterance closed) to its end, no decode.
  const double silence_start = speech / double(kRate);
  int decodes_then = -1, decodes_at_its_end = -1;
  for (const auto& [received, made] : decodes) {
    if (received <= silence_start + 1.0) decodes_then = made;
    if (received <= silence_start + 4.0) decodes_at_its_end = made;
  }
  EXPECT_EQ(decodes_at_its_end, decodes_then);
}

// Three sentences handed over in one piece, as a caller catching up after a slow decode would: each
// utterance the VAD closes is reported apart (push() alone keeps only the last end), and the words
// are the same as when the audio comes step by step.
TEST_F(StreamingTranscriberTest, ManyUtterancesInOnePushAreReportedApart) {
  StreamOptions o = greedy(0.5);
  o.vad = VadParameters{};
  o.vad->model = test::vad_model_file(data_);
  o.vad->min_silence_duration_ms = 500;
  o.vad->speech_pad_ms = 100;
  const std::vector<float> audio = sentences();
  StreamingTranscriber at_once(model_, o);
  std::vector<StreamUpdate> updates;
  at_once.push_and_update(audio, [&](StreamUpdate u) { updates.push_back(std::move(u)); });
  updates.push_back(at_once.finish());
  int ends = 0;
  std::vector<Word> committed;
  for (const StreamUpdate& u : updates) {
    ends += u.utterance_ended;
    committed.insert(committed.end(), u.committed.begin(), u.committed.end());
  }
  EXPECT_GE(ends, 3);
  // The same words (decoded at other moments, a mark made of the trailing silence may differ).
  auto words_only = [](const std::vector<Word>& words) {
    std::string text = normalize_english(text_of(words));
    std::erase_if(text, [](char c) { return c == '.' || c == ','; });
    return normalize_english(text);
  };
  StreamingTranscriber in_steps(model_, o);
  EXPECT_EQ(words_only(committed), words_only(stream(in_steps, audio, 0.5)));

  StreamingTranscriber pushed_whole(model_, o);
  pushed_whole.push(audio);
  EXPECT_TRUE(pushed_whole.utterance_closed());
  int whole_ends = pushed_whole.update().utterance_ended;
  whole_ends += pushed_whole.finish().utterance_ended;
  EXPECT_LT(whole_ends, ends) << "push() alone kept every end: the test shows nothing";
}

TEST_F(StreamingTranscriberTest, AStreamThatStopsMidWordIsFlushed) {
  const std::vector<float> jfk = load_audio(data_ + "/audio/jfk.flac");
  StreamingTranscriber s(model_, greedy(0.5));
  const std::vector<float> cut(jfk.begin(), jfk.begin() + static_cast<long>(2.3 * kRate));  // "...my fellow Ame|"
  const std::vector<Word> committed = stream(s, cut, 0.5);
  ASSERT_FALSE(committed.empty());
  const std::string text = normalize_english(text_of(committed));
  EXPECT_EQ(text.rfind("and so", 0), 0u) << text;
  EXPECT_NE(text.find("fellow"), std::string::npos) << text;
}

TEST_F(StreamingTranscriberTest, BadOptionsAndSamplesAreRefused) {
  StreamOptions bad_step;
  bad_step.step_seconds = 0.01;
  EXPECT_NE(test::error_of([&] { StreamingTranscriber(model_, bad_step); }).find("step"), std::string::npos);
  StreamOptions vad_in_the_wrong_place;
  vad_in_the_wrong_place.transcribe.vad = VadParameters{};
  EXPECT_NE(test::error_of([&] { StreamingTranscriber(model_, vad_in_the_wrong_place); }).find("StreamOptions::vad"),
            std::string::npos);
  StreamOptions missing_vad;
  missing_vad.vad = VadParameters{};
  missing_vad.vad->model = "/no/such/vad.bin";
  EXPECT_NE(test::error_of([&] { StreamingTranscriber(model_, missing_vad); }), "(no error)");

  StreamingTranscriber s(model_);
  const std::vector<float> nan(100, std::numeric_limits<float>::quiet_NaN());
  EXPECT_NE(test::error_of([&] { s.push(nan); }).find("NaN"), std::string::npos);
  EXPECT_TRUE(s.finish().committed.empty());  // nothing was taken from the bad block
}

}  // namespace
}  // namespace auris
