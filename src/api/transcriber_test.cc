// The public API: bad buffers and options are refused with clear errors before any work; a
// transcription's windows are encoded once and their cross K/V reused across temperature retries
// and, where it reads the same 30 s, language detection.
#include "api/engine_access.h"
#include "api/model_impl.h"
#include "auris/transcribe.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "auris/audio.h"
#include "auris/batch.h"
#include "auris/error.h"
#include "test_support.h"

namespace auris {
namespace {

using TranscriberApi = test::TinyEnSuite;

using test::error_of;

// Greedy decoding at one temperature: the quickest transcription that still runs the seek loop.
TranscribeOptions greedy_once() {
  TranscribeOptions options;
  options.decoding.beam_size.reset();
  options.temperatures = {0.0};
  return options;
}

// The long-form file's first seconds: more than one window, less time than all of it.
std::vector<float> longform_start(const std::string& data, int seconds) {
  std::vector<float> audio = load_audio(data + "/audio/longform/hifitts-dev-concat.flac");
  audio.resize(static_cast<size_t>(seconds) * 16000);
  return audio;
}

TEST_F(TranscriberApi, RefusesBuffersItCannotUse) {
  Transcriber t(model_);
  const std::vector<float> second(16000, 0.0f);
  EXPECT_NE(error_of([&] { t.transcribe(second, 44100); }).find("16000 Hz"), std::string::npos);
  EXPECT_NE(error_of([&] { t.transcribe({}, 16000); }).find("empty"), std::string::npos);
  EXPECT_NE(error_of([&] { t.decode(second, 8000); }).find("resample"), std::string::npos);
  EXPECT_NE(error_of([&] { t.detect_language({}, 16000); }).find("empty"), std::string::npos);
  // One NaN made the whole window's spectrogram NaN, which decoded as confident words.
  std::vector<float> spoiled(16000, 0.0f);
  spoiled[1000] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(error_of([&] { t.transcribe(spoiled, 16000); }).find("NaN or an infinity at sample 1000"), std::string::npos);
  spoiled[1000] = std::numeric_limits<float>::infinity();
  EXPECT_NE(error_of([&] { t.detect_language(spoiled, 16000); }).find("at sample 1000"), std::string::npos);
  // 100,000 threads crashed inside OpenMP.
  EXPECT_NE(error_of([&] { t.set_threads(100000); }).find("0 (all cores) to 1024"), std::string::npos);
}

TEST_F(TranscriberApi, RefusesContradictoryOptionsBeforeWork) {
  Transcriber t(model_);
  const std::vector<float> second(16000, 0.0f);
  DecodingOptions beam_and_sampling;
  beam_and_sampling.temperature = 0.5;
  beam_and_sampling.beam_size = 5;
  EXPECT_THROW(t.decode(second, 16000, beam_and_sampling), Error);
  DecodingOptions translate;
  translate.task = "translate";  // tiny.en is English-only
  EXPECT_THROW(t.decode(second, 16000, translate), Error);
  TranscribeOptions no_temperatures;
  no_temperatures.temperatures.clear();
  EXPECT_THROW(t.transcribe(second, 16000, no_temperatures), Error);
  TranscribeOptions nan_threshold;
  nan_threshold.no_speech_threshold = std::nan("");
  EXPECT_NE(error_of([&] { t.transcribe(second, 16000, nan_threshold); }).find("no_speech_threshold"), std::string::npos);
  TranscribeOptions negative_silence;
  negative_silence.hallucination_silence_threshold = -5;
  EXPECT_NE(error_of([&] { t.transcribe(second, 16000, negative_silence); }).find("positive"), std::string::npos);
  EXPECT_EQ(engine_counters(t).encoder_windows, 0) << "no window may be encoded for a refused request";
}

// faster-whisper's hotwords lead every window's prompt, the previous text filling the rest: the
// prompts openai's carry_initial_prompt sends for the same text, so the same transcript.
TEST_F(TranscriberApi, HotwordsPromptEveryWindowAsACarriedInitialPrompt) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const std::vector<float> first_70s = longform_start(data, 70);
  Transcriber t(model_);
  const TranscribeOptions options = greedy_once();
  const std::string words = "Hi-Fi TTS, LibriVox, Gutenberg";
  TranscribeOptions hotwords = options;
  hotwords.hotwords = words;
  TranscribeOptions carried = options;
  carried.initial_prompt = words;
  carried.carry_initial_prompt = true;
  const Transcript with_hotwords = t.transcribe(first_70s, 16000, hotwords);
  const Transcript with_carried = t.transcribe(first_70s, 16000, carried);
  ASSERT_GE(with_hotwords.segments.back().seek, 3000) << "at least two windows";
  ASSERT_EQ(with_hotwords.segments.size(), with_carried.segments.size());
  for (size_t i = 0; i < with_hotwords.segments.size(); ++i)
    EXPECT_EQ(with_hotwords.segments[i].tokens, with_carried.segments[i].tokens) << "segment " << i;
  // openai's prefix starts every window, where faster-whisper would drop the hotwords: refused.
  hotwords.decoding.prefix = TextOrTokens(std::string("And"));
  EXPECT_NE(error_of([&] { t.transcribe(first_70s, 16000, hotwords); }).find("give one or the other"), std::string::npos);
}

// faster-whisper's prompt_reset_on_temperature: below every temperature (here -1), every window
// forgets the text before it, as without condition_on_previous_text; at openai's 0.5 a greedy
// window prompts the next.
TEST_F(TranscriberApi, PromptResetsAboveItsTemperature) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const std::vector<float> first_70s = longform_start(data, 70);
  Transcriber t(model_);
  const TranscribeOptions options = greedy_once();
  TranscribeOptions always_reset = options;
  always_reset.prompt_reset_on_temperature = -1.0;
  TranscribeOptions unconditioned = options;
  unconditioned.condition_on_previous_text = false;
  auto tokens = [&](const TranscribeOptions& o) {
    std::vector<std::vector<int>> all;
    for (const Segment& s : t.transcribe(first_70s, 16000, o).segments) all.push_back(s.tokens);
    return all;
  };
  const auto without_prompts = tokens(unconditioned);
  EXPECT_EQ(tokens(always_reset), without_prompts);
  EXPECT_NE(tokens(options), without_prompts) << "the previous text changes these windows";
  always_reset.prompt_reset_on_temperature = std::nan("");
  EXPECT_NE(error_of([&] { t.transcribe(first_70s, 16000, always_reset); }).find("prompt_reset_on_temperature"),
            std::string::npos);
}

// faster-whisper's initial_prompt may be token ids: those of the text give the text's transcript.
// Special tokens would end the prompt's text, and are refused before any window is encoded.
TEST_F(TranscriberApi, InitialPromptTakesTokenIds) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const std::vector<float> jfk = load_audio(data + "/audio/jfk.flac");
  Transcriber t(model_);
  const TranscribeOptions options = greedy_once();
  TranscribeOptions as_text = options;
  as_text.initial_prompt = std::string("President Kennedy's inaugural address, 1961.");
  TranscribeOptions as_tokens = options;
  as_tokens.initial_prompt = model_impl(*model_).tokenizer.encode(" President Kennedy's inaugural address, 1961.");
  const Transcript from_text = t.transcribe(jfk, 16000, as_text);
  const Transcript from_tokens = t.transcribe(jfk, 16000, as_tokens);
  ASSERT_EQ(from_text.segments.size(), from_tokens.segments.size());
  for (size_t i = 0; i < from_text.segments.size(); ++i)
    EXPECT_EQ(from_text.segments[i].tokens, from_tokens.segments[i].tokens) << "segment " << i;
  EXPECT_EQ(from_text.text, from_tokens.text) << "the prompt is not part of the text";

  Transcriber fresh(model_);
  for (const int special : {model_impl(*model_).tokenizer.eot(), -1, 1 << 30}) {
    as_tokens.initial_prompt = std::vector<int>{440, special};
    EXPECT_NE(error_of([&] { fresh.transcribe(jfk, 16000, as_tokens); }).find("is not a text token"), std::string::npos);
  }
  EXPECT_EQ(engine_counters(fresh).encoder_windows, 0);
}

// openai's np.arange(temperature, 1.0 + 1e-6, increment), to the last bit: numpy fills start,
// start + step, then start + i * ((start + step) - start), which is neither a running sum (0.1
// summed seven times is 0.7999999999999999, np.arange's eighth value 0.7000000000000001) nor
// start + i * step (0.5 + 2 * 0.2 is 0.9, np.arange's third value 0.8999999999999999).
TEST(FallbackTemperatures, AreOpenaisArange) {
  EXPECT_EQ(fallback_temperatures(0.0, 0.2), (std::vector<double>{0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0}));
  const std::vector<double> tenths = fallback_temperatures(0.0, 0.1);
  ASSERT_EQ(tenths.size(), 11u);
  EXPECT_EQ(tenths[7], 0.7000000000000001);
  EXPECT_EQ(fallback_temperatures(0.5, 0.2), (std::vector<double>{0.5, 0.7, 0.8999999999999999}));
  EXPECT_EQ(fallback_temperatures(0.5, 0.0), std::vector<double>{0.5});
  EXPECT_EQ(fallback_temperatures(1.0, 0.2), std::vector<double>{1.0});
  EXPECT_EQ(fallback_temperatures(3.0, 0.0), std::vector<double>{3.0}) << "above 1 only without fallback";
  EXPECT_NE(error_of([] { fallback_temperatures(0.0, 1e-9); }).find("at most 100"), std::string::npos);
  EXPECT_NE(error_of([] { fallback_temperatures(1.5, 0.2); }).find("at most 1"), std::string::npos);
  EXPECT_THROW(fallback_temperatures(std::nan(""), 0.2), Error);
  EXPECT_THROW(fallback_temperatures(0.0, -0.2), Error);
  EXPECT_THROW(fallback_temperatures(0.0, std::numeric_limits<double>::infinity()), Error);
}

TEST_F(TranscriberApi, SilenceGivesAnEmptyTranscript) {
  Transcriber t(model_);
  const std::vector<float> silence(16000 * 5, 0.0f);
  const Transcript result = t.transcribe(silence, 16000);
  std::string text;
  for (const auto& s : result.segments) text += s.text;
  EXPECT_EQ(text.find_first_not_of(' '), std::string::npos) << text;
}

TEST_F(TranscriberApi, FallbackRetriesReuseTheWindow) {
  const std::string data = test::shared_data_dir();
  if (data.empty()) GTEST_SKIP() << "../shared/data not found";
  Transcriber t(model_);
  const auto samples = load_audio(data + "/audio/jfk.flac");
  TranscribeOptions always_retry;
  always_retry.logprob_threshold = 10.0;  // every result "fails": all six temperatures are tried
  always_retry.no_speech_threshold.reset();
  always_retry.decoding.best_of = 2;
  const EngineCounters before = engine_counters(t);
  const Transcript result = t.transcribe(samples, 16000, always_retry);
  ASSERT_FALSE(result.segments.empty());
  EXPECT_DOUBLE_EQ(result.segments[0].temperature, 1.0);
  const EngineCounters c = engine_counters(t);
  EXPECT_EQ(c.encoder_windows - before.encoder_windows, 1) << "11 s of audio is one window";
  EXPECT_EQ(c.cross_kv_rows - before.cross_kv_rows, 1500) << "six decodes of one window, one cross K/V projection";
}

// Language detection reads the first 30 s of the padded spectrogram. Beyond 30 s of audio the first
// window is exactly that, and is not encoded twice; a shorter recording's first window is its frames
// zero-padded, a different input, so it is encoded again (as openai/whisper does).
TEST(TranscriberLanguageDetection, EncodesTheFirstWindowOnceWhenItIsTheSame) {
  AURIS_REQUIRE_SHARED_DATA(data);
  AURIS_REQUIRE_MODEL(path, "base");
  const std::shared_ptr<const Model> model = Model::load(path);
  const std::vector<float> long_audio = load_audio(data + "/audio/longform/hifitts-dev-concat.flac");
  const std::vector<float> first_40s(long_audio.begin(), long_audio.begin() + 40 * 16000);
  const std::vector<float> short_audio = load_audio(data + "/audio/jfk.flac");
  auto windows_encoded = [&](const std::vector<float>& samples, std::optional<std::string> language) {
    Transcriber t(model);
    TranscribeOptions options;  // greedy, no fallback: only the windows encoded matter here
    options.decoding.beam_size.reset();
    options.temperatures = {0.0};
    options.decoding.language = language;
    const Transcript result = t.transcribe(samples, 16000, options);
    EXPECT_EQ(result.language, "en");
    return engine_counters(t).encoder_windows;
  };
  const long long detected = windows_encoded(first_40s, std::nullopt);
  EXPECT_GE(detected, 2) << "40 s take at least two windows";
  EXPECT_EQ(detected, windows_encoded(first_40s, "en")) << "detection added an encoder pass";
  EXPECT_EQ(windows_encoded(short_audio, std::nullopt), windows_encoded(short_audio, "en") + 1);
}

// faster-whisper's language_detection_segments: 30 s of white noise (base: Nynorsk, at about 0.47),
// then German. One window says "nn"; a second window is read while none passes the threshold.
TEST(TranscriberLanguageDetection, LaterWindowsDecideWhenTheFirstIsUnsure) {
  AURIS_REQUIRE_SHARED_DATA(data);
  AURIS_REQUIRE_MODEL(path, "base");
  std::vector<float> audio;
  uint32_t x = 12345;
  for (int i = 0; i < 30 * 16000; ++i) {
    x = (1103515245u * x + 12345u) & 0x7fffffffu;
    audio.push_back((static_cast<float>(x) / 2147483648.0f * 2 - 1) * 0.05f);
  }
  const std::vector<float> german = load_audio(data + "/audio/multilingual/test_de.wav");
  audio.insert(audio.end(), german.begin(), german.end());
  const std::shared_ptr<const Model> model = Model::load(path);
  Transcriber t(model);
  BatchTranscriber batch(model, 2);  // its chunks without VAD are the same 30-s windows
  TranscribeOptions options;
  options.decoding.beam_size.reset();
  options.temperatures = {0.0};
  options.clip_timestamps = {30.0};  // the language is detected from the start; only the German is decoded
  auto detected = [&](int segments, double threshold) {
    options.language_detection_segments = segments;
    options.language_detection_threshold = threshold;
    const Transcript result = t.transcribe(audio, 16000, options);
    return std::make_pair(result.language, result.language_probability);
  };
  const auto [first, first_probability] = detected(1, 0.5);
  EXPECT_EQ(first, "nn");
  EXPECT_LT(first_probability, 0.5);
  const auto [second, second_probability] = detected(2, 0.5);
  EXPECT_EQ(second, "de");
  EXPECT_GT(second_probability, 0.99);
  // The batch's chunk is the German alone, whose log-mel is scaled by its own maximum: nearly the same.
  options.clip_timestamps.clear();  // the batch does not take clips
  const Transcript batched = batch.transcribe(audio, 16000, options);
  EXPECT_EQ(batched.language, "de");
  EXPECT_NEAR(batched.language_probability, second_probability, 1e-4);
  // Neither passes a threshold of 1: one vote each, and the first on top wins, with its probability.
  const auto [tie, tie_probability] = detected(2, 1.0);
  EXPECT_EQ(tie, "nn");
  EXPECT_NEAR(tie_probability, first_probability, 1e-6);
}

// faster-whisper's multilingual mode: jfk padded to 30 s, then German. The recording's language is
// English; each window is decoded in the language heard in it, so the German is not translated.
TEST(TranscriberLanguageDetection, MultilingualDecodesEachWindowInItsLanguage) {
  AURIS_REQUIRE_SHARED_DATA(data);
  AURIS_REQUIRE_MODEL(path, "base");
  std::vector<float> audio = load_audio(data + "/audio/jfk.flac");
  audio.resize(30 * 16000, 0.0f);
  const std::vector<float> german = load_audio(data + "/audio/multilingual/test_de.wav");
  audio.insert(audio.end(), german.begin(), german.end());
  Transcriber t(Model::load(path));
  TranscribeOptions options;
  options.decoding.beam_size.reset();
  options.temperatures = {0.0};
  options.condition_on_previous_text = false;  // an English prompt pulls the German into English
  const Transcript one_language = t.transcribe(audio, 16000, options);
  options.multilingual = true;
  const Transcript per_window = t.transcribe(audio, 16000, options);
  EXPECT_EQ(one_language.language, "en");
  EXPECT_EQ(per_window.language, "en");
  ASSERT_EQ(per_window.segments.size(), one_language.segments.size());
  EXPECT_EQ(per_window.segments.front().text, one_language.segments.front().text);
  EXPECT_EQ(per_window.segments.back().seek, 3000);
  EXPECT_NE(per_window.segments.back().text.find("Portal"), std::string::npos) << per_window.segments.back().text;
  EXPECT_EQ(one_language.segments.back().text.find("Portal"), std::string::npos) << one_language.segments.back().text;
}

}  // namespace
}  // namespace auris
