// End-to-end tests of the `auris` command: real runs of the built binary, checking what a user sees
// (stdout, stderr, exit status) for good input and for every kind of bad input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "auris/audio.h"
#include "file_hub.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace auris {
namespace {

struct RunResult {
  int status = -1;  // exit status; 128 + signal if killed
  std::string out;
  std::string err;
};

// stdout_to: where the command's standard output goes (its own file when empty).
RunResult run_cli(const std::string& args, const std::string& stdout_to = "") {
  // Not test::temp_dir(): that empties the test's directory, which holds the files being run on.
  // ctest runs tests as parallel processes, so the process id keeps their captures apart.
  static int counter = 0;
  const fs::path dir = fs::temp_directory_path() / "auris-cli-runs" /
                       (std::to_string(::getpid()) + "-" + std::to_string(++counter));
  fs::create_directories(dir);
  const std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  const std::string cmd =
      std::string("timeout 300 ") + test::cli_path() + " " + args + " >" + (stdout_to.empty() ? out : stdout_to) + " 2>" + err;
  const int raw = std::system(cmd.c_str());
  RunResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove_all(dir);
  return r;
}

// Lower case, letters/digits/spaces only: compares transcripts without punctuation or casing.
std::string words(const std::string& s) {
  std::string w;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) w += static_cast<char>(std::tolower(c));
    else if (c == ' ' && !w.empty() && w.back() != ' ') w += ' ';
  }
  while (!w.empty() && w.back() == ' ') w.pop_back();
  return w;
}

void expect_clean_failure(const RunResult& r, const std::string& message_part) {
  EXPECT_EQ(r.status, 1) << "stderr: " << r.err;  // 1 = handled error; not a crash signal or internal error
  EXPECT_NE(r.err.find("auris: error:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(message_part), std::string::npos) << r.err;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = test::shared_data_dir();
    model_ = test::cached_model("tiny.en");
    if (data_.empty() || model_.empty()) GTEST_SKIP() << "needs ../shared/data and the tiny.en model (scripts/fetch_models.sh)";
    jfk_ = data_ + "/audio/jfk.flac";
  }
  std::string data_, model_, jfk_;
};

TEST_F(Cli, TranscribesJfk) {
  const RunResult r = run_cli("transcribe --model " + model_ + " " + jfk_);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(words(r.out),
            "and so my fellow americans ask not what your country can do for you ask what you can do for your country");
}

// float32 is the reference's arithmetic, and float16, the default, keeps its tokens (the parity
// suites check every fixture): beam 5 on these weights gives openai/whisper's own text.
TEST_F(Cli, DefaultAndFloat32GiveTheReferenceText) {
  for (const std::string type_option : {"", "--compute-type float32 ", "--compute-type float16 "}) {
    const RunResult r = run_cli("transcribe " + type_option + "--model " + model_ + " " + jfk_);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out,
              "And so, my fellow Americans ask not what your country can do for you ask what you can do for your country.\n")
        << type_option;
  }
}

// --print-timings: one JSON line on stderr with the stages bench/speed.py reads, the model's load
// time among them.
TEST_F(Cli, PrintTimingsGivesEveryStage) {
  const RunResult r = run_cli("transcribe --beam-size 0 --print-timings --model " + model_ + " " + jfk_);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string tag = "auris: timings ";
  const size_t at = r.err.find(tag);
  ASSERT_NE(at, std::string::npos) << r.err;
  const nlohmann::json t = nlohmann::json::parse(r.err.substr(at + tag.size(), r.err.find('\n', at) - at - tag.size()));
  EXPECT_GT(t.at("model_load_s").get<double>(), 0.0);
  EXPECT_EQ(t.at("encoder_windows").get<int>(), 1);  // jfk: one 30-s window
  EXPECT_GT(t.at("encoder_ms_per_window").get<double>(), 0.0);
  EXPECT_GE(t.at("prefills").get<int>(), 1);
  EXPECT_GT(t.at("decode_steps").get<int>(), 10);
  EXPECT_EQ(t.at("model").at("compute_type").get<std::string>(), "float16") << "the default";
  EXPECT_GT(t.at("model").at("decode_weight_bytes").get<double>(), 0.0);
}

TEST_F(Cli, HelpAndVersion) {
  EXPECT_EQ(run_cli("--help").status, 0);
  EXPECT_EQ(run_cli("transcribe --help").status, 0);
  EXPECT_NE(run_cli("--version").out.find("auris"), std::string::npos);
  EXPECT_NE(run_cli("").status, 0);  // a subcommand is required
}

TEST_F(Cli, BadOptionValuesAreRejected) {
  for (const std::string bad : {"--task summarize", "--beam-size -3", "--temperature banana", "--threads -1",
                                "--compute-type float64", "--device tpu", "--no-such-option"}) {
    const RunResult r = run_cli("transcribe --model " + model_ + " " + bad + " " + jfk_);
    EXPECT_NE(r.status, 0) << bad;
    EXPECT_LT(r.status, 128) << bad << " crashed";
    EXPECT_FALSE(r.err.empty()) << bad;
  }
  expect_clean_failure(run_cli("transcribe --model " + model_ + " --language klingon " + jfk_), "klingon");
  // English-only models cannot translate.
  expect_clean_failure(run_cli("transcribe --model " + model_ + " --task translate " + jfk_), "English");
}

// `auris download silero-vad` from a local "hub" (file:// URLs) into a temporary model cache.
TEST(CliDownload, SileroVadLandsInTheModelCache) {
  const std::string root = test::temp_dir(), cache = root + "/cache";
  test::FileHub hub(root + "/hub");
  hub.publish_text("ggml-org/whisper-vad", "ggml-silero-v6.2.0.bin", "vad");
  setenv("AURIS_HUB_ENDPOINT", hub.endpoint().c_str(), 1);
  setenv("AURIS_MODEL_DIR", cache.c_str(), 1);
  const RunResult r = run_cli("download silero-vad");
  const RunResult wrong_format = run_cli("download silero-vad --format ct2");
  const RunResult models = run_cli("models");
  unsetenv("AURIS_HUB_ENDPOINT");
  unsetenv("AURIS_MODEL_DIR");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, cache + "/ggml-silero-v6.2.0.bin\n");
  EXPECT_TRUE(fs::exists(cache + "/ggml-silero-v6.2.0.bin"));
  expect_clean_failure(wrong_format, "ggml format only");
  EXPECT_NE(models.out.find("silero-vad"), std::string::npos) << models.out;
  EXPECT_NE(models.out.find("ggml-silero-v6.2.0.bin"), std::string::npos) << "listed as cached: " << models.out;
}

// What a sweep of hostile inputs found: each is refused with a message that says what to do, before
// any long work, where it made auris hang, run out of memory, or say something misleading.
TEST_F(Cli, NumbersPastReasonAreRefused) {
  const struct {
    std::string options, message;
  } cases[] = {
      {"--temperature-increment-on-fallback 1e-9", "at most 100"},  // a billion temperatures
      {"--temperature 1.5", "at most 1"},
      {"--beam-size 5 --patience nan", "above 0"},
      {"--no-speech-threshold nan", "finite"},
      {"--length-penalty 10", "a number from 0 to 1 is needed, got '10'"},
      {"--clip-timestamps 0,1e300", "1e+300"},
      {"--repetition-penalty 0.0009", "--repetition-penalty: a number from 0.001 to 1000 is needed"},
      // CLI11's own checks said "Value abc not in range 1 to 100" and printed the largest double.
      {"--no-repeat-ngram-size -1", "--no-repeat-ngram-size: a whole number from 0 to 2147483647 is needed, got '-1'"},
      {"--language-detection-segments abc", "a whole number from 1 to 100 is needed, got 'abc'"},
      {"--language-detection-segments 1.5", "a whole number from 1 to 100 is needed, got '1.5'"},
      {"--language-detection-threshold 1.5", "a number from 0 to 1 is needed"},
      {"--max-line-width -1", "a whole number from 0 to 2147483647"},
      {"--hotwords \"$(printf '\\377\\376')\"", "--hotwords is not valid UTF-8 text"},  // /bin/sh's printf
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.options);
    const RunResult r = run_cli("transcribe --model " + model_ + " " + c.options + " " + jfk_);
    EXPECT_NE(r.status, 0);
    EXPECT_LT(r.status, 128) << "crashed";
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
}

TEST_F(Cli, PathsThatAreNotFilesFailCleanly) {
  const std::string dir = test::temp_dir();
  const std::string fifo = dir + "/model.bin", loop = dir + "/loop";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink(loop + "2", loop);
  fs::create_symlink(loop, loop + "2");
  expect_clean_failure(run_cli("transcribe --model " + fifo + " " + jfk_), "not a regular file");  // not a hang
  expect_clean_failure(run_cli("transcribe --model " + loop + " " + jfk_), "cannot use the model path '" + loop + "'");
  expect_clean_failure(run_cli("wer " + dir + " " + dir), "is a directory");
  expect_clean_failure(run_cli("wer /dev/zero /dev/zero"), "over 256 MB");  // not read into memory to the end
}

TEST_F(Cli, ASampleRateNoRecordingHasIsADamagedHeader) {
  const std::string path = test::temp_dir() + "/one_hertz.wav";
  std::vector<char> data(32000, 1);  // 1 s of samples at 16 kHz, which at 1 Hz would be 4.4 hours
  std::ofstream wav(path, std::ios::binary);
  auto u32 = [&](uint32_t v) { wav.write(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [&](uint16_t v) { wav.write(reinterpret_cast<const char*>(&v), 2); };
  wav << "RIFF";
  u32(36 + data.size());
  wav << "WAVEfmt ";
  u32(16), u16(1), u16(1), u32(1), u32(2), u16(2), u16(16);
  wav << "data";
  u32(data.size());
  wav.write(data.data(), static_cast<std::streamsize>(data.size()));
  wav.close();
  expect_clean_failure(run_cli("transcribe --model " + model_ + " " + path), "sample rate is 1 Hz");
}

// Under one 10-ms frame there is nothing to transcribe, batched or not (batched, it gave an empty
// transcript and exit 0).
TEST_F(Cli, AudioUnderOneFrameIsTooShortBatchedOrNot) {
  const std::string path = test::write_wav(test::temp_dir() + "/hundred.wav", std::vector<float>(100, 0.1f));
  for (const std::string batch : {"", "--batch-size 2 "}) {
    SCOPED_TRACE(batch);
    expect_clean_failure(run_cli("transcribe --model " + model_ + " " + batch + path), "too short to transcribe: 100 samples");
  }
  // openai's transcribe() names a language for the padding alone; detect-language refuses, as transcribe does.
  expect_clean_failure(run_cli("detect-language --model " + model_ + " " + path), "too short to detect its language: 100 samples");
}

// A VAD model named at start is checked at start, not at the first request that asks for VAD.
TEST_F(Cli, ServeChecksTheVadModelItIsGiven) {
  const std::string bad = test::temp_dir() + "/vad.bin";
  std::ofstream(bad) << "not a ggml file";
  expect_clean_failure(run_cli("serve --model " + model_ + " --port 0 --vad-model " + bad), "vad.bin");
}

TEST_F(Cli, ATranscriptTheOutputRefusedIsAFailure) {
  expect_clean_failure(run_cli("transcribe --model " + model_ + " --beam-size 0 " + jfk_, "/dev/full"),
                       "could not write to standard output");
}

TEST_F(Cli, InputsThatWouldCollideAreRefused) {
  const std::string dir = test::temp_dir();
  fs::copy_file(jfk_, dir + "/talk.flac");
  fs::copy_file(data_ + "/audio/jfk.wav", dir + "/talk.wav");
  expect_clean_failure(run_cli("transcribe --model " + model_ + " -f txt -o " + dir + "/out " + dir + "/talk.flac " + dir +
                               "/talk.wav"),
                       "would write the same transcript files");
  expect_clean_failure(run_cli("transcribe --model " + model_ + " - - < " + jfk_), "can be read once");
  // `auris stream -` takes raw PCM: a file piped in is named, not decoded as noise.
  expect_clean_failure(run_cli("stream --model " + model_ + " - < " + jfk_), "holds a FLAC file");
}

// A conversion that fails leaves what was at the output as it was, and no partial model beside it.
TEST_F(Cli, AFailedConversionLeavesNothingHalfWritten) {
  const std::string dir = test::temp_dir(), output = dir + "/taken";
  std::ofstream(output) << "mine";
  const RunResult r = run_cli("convert " + model_ + " --to hf -o " + output);
  EXPECT_EQ(r.status, 1) << r.err;
  std::ifstream kept(output);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), "mine");
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path(), fs::path(output)) << "left behind";
}

TEST_F(Cli, MissingModelSaysHowToGetIt) {
  expect_clean_failure(run_cli("transcribe --model no-such-model " + jfk_),
                       "'no-such-model' is neither a path nor a model name auris knows (`auris models` lists them");
  // An official model, not cached, with the network kept out.
  setenv("AURIS_MODEL_DIR", test::temp_dir().c_str(), 1);
  setenv("AURIS_OFFLINE", "1", 1);
  const RunResult offline = run_cli("transcribe --model small " + jfk_);
  const RunResult offline_vad = run_cli("transcribe --model " + model_ + " --vad " + jfk_);
  unsetenv("AURIS_OFFLINE");
  unsetenv("AURIS_MODEL_DIR");
  expect_clean_failure(offline, "run `auris download small`");
  expect_clean_failure(offline_vad, "run `auris download silero-vad`");
}

// A stand-in hub and an empty model cache for the commands this test runs (tests/file_hub.h), the
// cached tiny.en served as a repository's CTranslate2 model when asked.
struct HubAndCache {
  HubAndCache(const std::string& root, const std::string& tiny_en) : hub(root + "/hub"), cache(root + "/cache"), tiny_en(tiny_en) {
    setenv("AURIS_HUB_ENDPOINT", hub.endpoint().c_str(), 1);
    setenv("AURIS_MODEL_DIR", cache.c_str(), 1);
  }
  ~HubAndCache() {
    unsetenv("AURIS_HUB_ENDPOINT");
    unsetenv("AURIS_MODEL_DIR");
  }
  void serve_tiny_en_as(const std::string& repo) {
    for (const std::string file : {"config.json", "model.bin", "tokenizer.json", "vocabulary.txt"})
      hub.publish_file(repo, file, tiny_en + "/" + file);
  }
  test::FileHub hub;
  std::string cache, tiny_en;
};

// A hub repository's model by its id, as faster-whisper takes it: a CTranslate2 conversion and a
// Hugging Face checkpoint (tiny.en written out by `auris convert`), each downloaded on first use.
TEST_F(Cli, AHubRepositoryIdIsDownloadedAndTranscribes) {
  const std::string root = test::temp_dir();
  HubAndCache stand_in(root, model_);
  const std::string& cache = stand_in.cache;
  const test::FileHub& hub = stand_in.hub;
  stand_in.serve_tiny_en_as("someone/whisper-tiny-en-ct2");
  ASSERT_EQ(run_cli("convert " + model_ + " --to hf --f16 -o " + root + "/hf").status, 0);
  for (const std::string file : {"config.json", "generation_config.json", "merges.txt", "model.safetensors", "vocab.json"})
    stand_in.hub.publish_file("someone/whisper-tiny-en-hf", file, root + "/hf/" + file);
  const RunResult ct2 = run_cli("transcribe --model someone/whisper-tiny-en-ct2 " + jfk_);
  const RunResult hf = run_cli("transcribe --model someone/whisper-tiny-en-hf " + jfk_);
  const RunResult again = run_cli("transcribe --model someone/whisper-tiny-en-hf " + jfk_);
  const RunResult absent = run_cli("transcribe --model someone/no-such-repo " + jfk_);
  const std::string expected =
      "and so my fellow americans ask not what your country can do for you ask what you can do for your country";
  for (const RunResult* r : {&ct2, &hf, &again}) {
    ASSERT_EQ(r->status, 0) << r->err;
    EXPECT_EQ(words(r->out), expected);
  }
  EXPECT_NE(hf.err.find("auris: downloading someone/whisper-tiny-en-hf (its Whisper model) from " + hub.endpoint() +
                        " into " + cache + "/someone--whisper-tiny-en-hf"),
            std::string::npos)
      << hf.err;
  EXPECT_EQ(again.err.find("downloading"), std::string::npos) << again.err;
  expect_clean_failure(absent, "/api/models/someone/no-such-repo/tree/main");
}

// A model or VAD name that is not in the cache is downloaded first, checked against the hub's
// listing, and the command goes on; the next run finds it there. A file that is not what the hub
// lists stops the command, and nothing is left in the cache.
TEST_F(Cli, ModelsNotInTheCacheAreDownloadedFirst) {
  const auto served_config = [&] {
    std::ifstream in(model_ + "/config.json", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string config_before = served_config();
  HubAndCache stand_in(test::temp_dir(), model_);
  const std::string& cache = stand_in.cache;
  test::FileHub& hub = stand_in.hub;
  stand_in.serve_tiny_en_as("Systran/faster-whisper-tiny.en");
  hub.publish_file("ggml-org/whisper-vad", "ggml-silero-v6.2.0.bin", data_ + "/vad/for-tests-silero-v6.2.0-ggml.bin");
  const RunResult first = run_cli("transcribe --model tiny.en --vad " + jfk_);
  const RunResult second = run_cli("transcribe --model tiny.en --vad " + jfk_);
  fs::remove_all(cache);
  hub.publish_text("Systran/faster-whisper-tiny.en", "config.json", "{}");
  std::ofstream(hub.served_path("Systran/faster-whisper-tiny.en", "config.json")) << "[]";  // not what is listed
  const RunResult corrupt = run_cli("transcribe --model tiny.en " + jfk_);

  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(words(first.out),
            "and so my fellow americans ask not what your country can do for you ask what you can do for your country");
  for (const std::string& said : std::vector<std::string>{
           "auris: tiny.en is not in the model cache, so it is downloaded first (AURIS_OFFLINE=1 turns this off)",
        "auris: downloading tiny.en (ct2) from " + hub.endpoint() + " into " + cache + "/tiny.en",
        "auris: silero-vad is not in the model cache",
        "auris: downloading silero-vad (ggml) from " + hub.endpoint() + " into " + cache + "/ggml-silero-v6.2.0.bin"})
    EXPECT_NE(first.err.find(said), std::string::npos) << said << "\n" << first.err;
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(second.out, first.out);
  EXPECT_EQ(second.err.find("downloading"), std::string::npos) << second.err;
  expect_clean_failure(corrupt, "/config.json is corrupt: its Git blob id is");
  EXPECT_FALSE(fs::exists(cache + "/tiny.en"));
  EXPECT_FALSE(fs::exists(cache + "/tiny.en.partial"));
  EXPECT_EQ(served_config(), config_before) << "the stand-in hub wrote through to the real model's files";
}

// Ctrl-C in the middle of a long file: the transcription stops after the window being decoded, what
// was decided is printed and written as a whole run's would be, and the exit status is 130. The
// child's SIGINT is reset to its default first: a CI runner's background job starts with it
// ignored, and auris leaves an ignored SIGINT ignored.
TEST_F(Cli, CtrlCKeepsWhatWasTranscribed) {
  const std::string dir = test::temp_dir(), longform = data_ + "/audio/longform/hifitts-dev-concat.flac";
  const std::string out = dir + "/stdout", err = dir + "/stderr";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGINT, SIG_DFL);
    if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) ::_exit(126);
    ::execl(test::cli_path().c_str(), "auris", "transcribe", "--model", model_.c_str(), "-v", "-f", "srt", "-o",
            dir.c_str(), longform.c_str(), jfk_.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  // The first segment on stderr (-v), then Ctrl-C.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(240);
  while (slurp(err).find(" --> ") == std::string::npos && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string said = slurp(err), text = slurp(out);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status) << "\n" << said;
  EXPECT_EQ(WEXITSTATUS(status), 130) << said;
  EXPECT_NE(said.find("auris: interrupted: " + longform + " transcribed up to "), std::string::npos) << said;
  EXPECT_NE(said.find(" s (that text is kept), and the 1 file(s) after it not"), std::string::npos) << said;
  // The text kept is the start of the whole run's, and the subtitles hold it.
  const RunResult whole = run_cli("transcribe --model " + model_ + " " + longform);
  ASSERT_EQ(whole.status, 0) << whole.err;
  ASSERT_FALSE(words(text).empty());
  EXPECT_LT(words(text).size(), words(whole.out).size());
  EXPECT_EQ(words(whole.out).rfind(words(text), 0), 0u) << text;
  const std::string srt = slurp(dir + "/hifitts-dev-concat.srt");
  EXPECT_NE(srt.find("1\n00:00:00,000 --> "), std::string::npos) << srt;
  EXPECT_FALSE(fs::exists(dir + "/jfk.srt")) << "the file after the interrupted one is not transcribed";
}

TEST_F(Cli, BadAudioFilesFailCleanlyWithoutLosingTheOthers) {
  const std::string dir = test::temp_dir();
  const std::string text_mp3 = dir + "/notes.mp3", empty = dir + "/empty.wav";
  std::ofstream(text_mp3) << "this is not audio, just text pretending\n";
  std::ofstream(empty).close();
  struct Case {
    std::string path, message;
  } cases[] = {{dir + "/missing.flac", "missing.flac"}, {dir, "is a directory"}, {text_mp3, "notes.mp3"},
               {empty, "empty.wav"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.path);
    expect_clean_failure(run_cli("transcribe --model " + model_ + " --beam-size 0 " + c.path), c.message);
  }
  // A batch with a bad file still transcribes the good one, and reports failure.
  const RunResult batch = run_cli("transcribe --model " + model_ + " --beam-size 0 " + text_mp3 + " " + jfk_);
  EXPECT_EQ(batch.status, 1);
  EXPECT_NE(words(batch.out).find("ask not what your country"), std::string::npos) << batch.out;
}

// --batch-size: the files' texts in the order of the files, each file's outputs written; a bad file
// fails alone; bad sizes and --pack without a batch are refused before any work.
TEST_F(Cli, BatchedFilesKeepTheirOrderAndABadOneFailsAlone) {
  const std::string dir = test::temp_dir();
  const std::string clip = data_ + "/audio/hifitts-6097/audio/swag_06_tompkins_0883.wav";
  const std::string bad = dir + "/notes.mp3";
  std::ofstream(bad) << "this is not audio\n";
  const RunResult r = run_cli("transcribe --model " + model_ + " --beam-size 0 --batch-size 2 --pack -v -f srt -o " + dir +
                              " " + jfk_ + " " + bad + " " + clip);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("notes.mp3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[00:00.000 --> "), std::string::npos) << "--verbose prints each file's segments: " << r.err;
  const std::string out = words(r.out);
  const size_t jfk_at = out.find("ask not what your country"), clip_at = out.find("no mistake");
  ASSERT_NE(jfk_at, std::string::npos) << r.out;
  ASSERT_NE(clip_at, std::string::npos) << r.out;
  EXPECT_LT(jfk_at, clip_at) << "stdout follows the order of the files";
  EXPECT_TRUE(fs::exists(dir + "/jfk.srt"));
  EXPECT_TRUE(fs::exists(dir + "/swag_06_tompkins_0883.srt"));

  for (const char* size : {"-1", "257", "banana"})
    EXPECT_NE(run_cli("transcribe --model " + model_ + " --batch-size " + size + " " + jfk_).status, 0) << size;
  expect_clean_failure(run_cli("transcribe --model " + model_ + " --pack " + jfk_), "--pack needs --batch-size");
  expect_clean_failure(run_cli("transcribe --model " + model_ + " --batch-size 2 --recompute-cross-kv " + jfk_),
                       "switches of the sequential engine");
}

TEST_F(Cli, CorruptModelFailsCleanly) {
  const std::string dir = test::temp_dir() + "/broken";
  fs::create_directories(dir);
  for (const char* f : {"config.json", "vocabulary.txt"}) fs::copy_file(model_ + "/" + f, dir + "/" + f);
  {  // the first 10 kB of model.bin: a truncated download
    std::ifstream in(model_ + "/model.bin", std::ios::binary);
    std::string head(10000, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(dir + "/model.bin", std::ios::binary) << head;
  }
  expect_clean_failure(run_cli("transcribe --model " + dir + " " + jfk_), "truncated");
}

TEST_F(Cli, ConvertedModelsTranscribeTheSame) {
  const std::string dir = test::temp_dir();
  const RunResult hf = run_cli("convert " + model_ + " --to hf -o " + dir + "/hf");
  ASSERT_EQ(hf.status, 0) << hf.err;
  const RunResult gg = run_cli("convert " + model_ + " --to ggml --f16 -o " + dir + "/model.ggml.bin");
  ASSERT_EQ(gg.status, 0) << gg.err;
  const RunResult original = run_cli("transcribe --beam-size 0 --model " + model_ + " " + jfk_);
  const RunResult from_hf = run_cli("transcribe --beam-size 0 --model " + dir + "/hf " + jfk_);
  const RunResult from_ggml = run_cli("transcribe --beam-size 0 --model " + dir + "/model.ggml.bin " + jfk_);
  ASSERT_EQ(original.status, 0) << original.err;
  EXPECT_EQ(from_hf.out, original.out) << from_hf.err;
  EXPECT_EQ(from_ggml.out, original.out) << from_ggml.err;
}

// A q8_0 file as whisper.cpp's `quantize` writes it loads and transcribes jfk as the original does;
// --quantize takes ggml's two block types, for ggml output only.
TEST_F(Cli, QuantisedGgmlTranscribes) {
  const std::string dir = test::temp_dir();
  const RunResult q = run_cli("convert " + model_ + " --to ggml --quantize q8_0 -o " + dir + "/q8.bin");
  ASSERT_EQ(q.status, 0) << q.err;
  const RunResult original = run_cli("transcribe --beam-size 0 --model " + model_ + " " + jfk_);
  const RunResult from_q8 = run_cli("transcribe --beam-size 0 --model " + dir + "/q8.bin " + jfk_);
  ASSERT_EQ(from_q8.status, 0) << from_q8.err;
  EXPECT_EQ(from_q8.out, original.out);
  expect_clean_failure(run_cli("convert " + model_ + " --to hf --quantize q8_0 -o " + dir + "/hf"), "--to ggml");
  const RunResult q5 = run_cli("convert " + model_ + " --to ggml --quantize q5_0 -o " + dir + "/q5.bin");
  EXPECT_NE(q5.status, 0);
  EXPECT_LT(q5.status, 128) << "crashed";
  EXPECT_NE(q5.err.find("q5_0 not in {q8_0,q4_0}"), std::string::npos) << q5.err;
  expect_clean_failure(run_cli("convert " + model_ + " --to ggml --f16 --quantize q4_0 -o " + dir + "/q4.bin"), "--f16");
}

// faster-whisper's no_repeat_ngram_size, end to end: jfk repeats " ask", " what", " can", ...; with
// unigrams forbidden to repeat, no token comes twice in the window (jfk is one window).
TEST_F(Cli, NoRepeatNgramSizeKeepsEveryTokenOnceAWindow) {
  auto window_tokens = [&](const std::string& options) {
    const std::string dir = test::temp_dir() + "/ngram";
    const RunResult r = run_cli("transcribe --beam-size 0 --model " + model_ + " " + options + " -f json -o " + dir + " " + jfk_);
    EXPECT_EQ(r.status, 0) << r.err;
    std::ifstream in(dir + "/jfk.json");
    const nlohmann::json transcript = nlohmann::json::parse(in);
    std::vector<int> tokens;
    for (const auto& segment : transcript["segments"]) {
      EXPECT_EQ(segment["seek"], 0);
      for (const int t : segment["tokens"]) tokens.push_back(t);
    }
    return tokens;
  };
  auto repeats = [](std::vector<int> tokens) {
    std::sort(tokens.begin(), tokens.end());
    return std::adjacent_find(tokens.begin(), tokens.end()) != tokens.end();
  };
  EXPECT_TRUE(repeats(window_tokens("")));
  const std::vector<int> once = window_tokens("--no-repeat-ngram-size 1");
  EXPECT_GT(once.size(), 10u);
  EXPECT_FALSE(repeats(once));
  EXPECT_EQ(window_tokens("--repetition-penalty 1"), window_tokens(""));
}

TEST_F(Cli, WritesEveryOutputFormat) {
  const std::string dir = test::temp_dir() + "/out";
  const RunResult r = run_cli("transcribe --beam-size 0 --model " + model_ + " -f all -o " + dir + " " + jfk_);
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* ext : {"txt", "vtt", "srt", "tsv", "json"}) EXPECT_TRUE(fs::exists(dir + "/jfk." + ext)) << ext;
  std::ifstream srt(dir + "/jfk.srt");
  const std::string text((std::istreambuf_iterator<char>(srt)), {});
  EXPECT_EQ(text.rfind("1\n00:00:00,000 --> ", 0), 0u) << text;
}

TEST_F(Cli, UnwritableOutputDirectoryFailsBeforeTranscribing) {
  expect_clean_failure(run_cli("transcribe --model " + model_ + " -f srt -o /proc/self/nope " + jfk_),
                       "--output-dir");
}

TEST_F(Cli, WordTimestampSubtitles) {
  const std::string dir = test::temp_dir() + "/words";
  const RunResult r = run_cli("transcribe --beam-size 0 --model " + model_ +
                              " --word-timestamps --max-line-width 20 --highlight-words -f vtt -o " + dir + " " + jfk_);
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream vtt(dir + "/jfk.vtt");
  const std::string text((std::istreambuf_iterator<char>(vtt)), {});
  EXPECT_NE(text.find("<u>Americans</u>"), std::string::npos) << text;  // one cue per spoken word
  expect_clean_failure(run_cli("transcribe --model " + model_ + " --max-line-width 20 " + jfk_), "--word-timestamps");
  expect_clean_failure(run_cli("transcribe --model " + model_ + " --clip-timestamps 3,x " + jfk_), "clip_timestamps");
}

// --vad: the speech alone is transcribed; digital silence gives an empty transcript and exit 0; in
// a batch a bad file loses only its own transcript.
TEST_F(Cli, VadTranscribesTheSpeech) {
  const std::string vad = "--vad --vad-model " + data_ + "/vad/for-tests-silero-v6.2.0-ggml.bin ";
  const RunResult r = run_cli("transcribe --beam-size 0 -v " + vad + "--model " + model_ + " " + jfk_);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(words(r.out),
            "and so my fellow americans ask not what your country can do for you ask what you can do for your country");
  EXPECT_NE(r.err.find("voice activity detection kept 11.00 s of speech of 11.00 s"), std::string::npos) << r.err;

  const std::string dir = test::temp_dir();
  const std::vector<float> silence(3 * 16000, 0.0f);
  const std::string quiet = test::write_wav(dir + "/quiet.wav", silence), text_mp3 = dir + "/notes.mp3";
  std::ofstream(text_mp3) << "this is not audio\n";
  const RunResult empty = run_cli("transcribe " + vad + "--model " + model_ + " " + quiet);
  EXPECT_EQ(empty.status, 0) << empty.err;
  EXPECT_EQ(empty.out, "\n");
  const RunResult batch = run_cli("transcribe --beam-size 0 " + vad + "--model " + model_ + " " + text_mp3 + " " + jfk_);
  EXPECT_EQ(batch.status, 1);
  EXPECT_NE(batch.err.find("notes.mp3"), std::string::npos) << batch.err;
  EXPECT_NE(words(batch.out).find("ask not what your country"), std::string::npos) << batch.out;
}

// Every bad VAD model or value: one `auris: error:` line naming it (and what to do), before the
// Whisper model loads.
TEST_F(Cli, VadBadModelsAndValuesFailCleanly) {
  const std::string dir = test::temp_dir(), real = data_ + "/vad/for-tests-silero-v6.2.0-ggml.bin";
  std::ofstream(dir + "/corrupt.bin") << std::string(5000, 'x');
  {
    std::ifstream in(real, std::ios::binary);
    std::string head(300000, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(dir + "/truncated.bin", std::ios::binary) << head;
  }
  auto expect_one_error = [&](const std::string& args, const std::string& message_part) {
    SCOPED_TRACE(args);
    const RunResult r = run_cli("transcribe --model " + model_ + " " + args + " " + jfk_);
    expect_clean_failure(r, message_part);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  };
  const std::string vad = "--vad --vad-model " + real + " ";
  expect_one_error("--vad --vad-model " + dir + "/corrupt.bin", "auris download silero-vad");
  expect_one_error("--vad --vad-model " + dir + "/truncated.bin", "truncated");
  expect_one_error("--vad --vad-model " + dir + "/truncated.bin", "auris download silero-vad");
  expect_one_error("--vad --vad-model no-such-vad", "auris download silero-vad");
  expect_one_error(vad + "--vad-threshold 1.5", "--vad-threshold = 1.5 is out of range: allowed 0 to 1");
  expect_one_error(vad + "--vad-neg-threshold 0.8", "--vad-neg-threshold = 0.8 is out of range");
  expect_one_error(vad + "--vad-min-speech-ms -5", "--vad-min-speech-ms = -5 ms is out of range");
  expect_one_error(vad + "--vad-min-silence-ms -1", "--vad-min-silence-ms");
  expect_one_error(vad + "--vad-speech-pad-ms -1", "--vad-speech-pad-ms");
  expect_one_error(vad + "--vad-max-speech-s 0.5", "--vad-max-speech-s = 0.5 s is out of range: allowed more than 0.832 s");
  expect_one_error("--vad-threshold 0.3", "--vad-threshold needs --vad");
  expect_one_error(vad + "--clip-timestamps 1,5", "--clip-timestamps");
  // A cache without the VAD model: Cli.MissingModelSaysHowToGetIt.
}

// The peak resident size of the command on args, in kB; -1 when it fails. A child forked from this
// (large) test process would count the pages it shared with it until its exec, so the command is
// started by a small python3 that reports its child's peak.
long cli_peak_kb(const std::string& dir, const std::string& args) {
  std::ofstream(dir + "/peak.py") << "import resource, subprocess, sys\n"
                                     "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
                                     "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if r.returncode == 0 else -1)\n";
  const std::string out = dir + "/peak.txt";
  if (std::system(("python3 " + dir + "/peak.py " + test::cli_path() + " " + args + " >" + out).c_str()) != 0) return -1;
  long kb = -1;
  std::ifstream(out) >> kb;
  return kb;
}

// A 20-minute file of quiet noise with jfk at each end: its samples would take 77 MB as floats, but
// `transcribe --vad` (Transcriber::transcribe_file) reads it block by block, the VAD's pass and then
// the speech's samples, so its peak memory is about what jfk alone takes.
TEST_F(Cli, VadKeepsMemoryBoundedOnLongFiles) {
  std::ifstream maps("/proc/self/maps");  // the sanitizer build links its runtime here too
  if (std::string((std::istreambuf_iterator<char>(maps)), {}).find("libasan") != std::string::npos)
    GTEST_SKIP() << "AddressSanitizer keeps freed memory in quarantine: resident memory is not the peak in use";
  const std::vector<float> jfk = load_audio(jfk_);
  const int64_t j = static_cast<int64_t>(jfk.size()), noise = 20 * 60 * 16000, n = noise + 2 * j;
  uint32_t x = 1;
  if (std::system("python3 -c 'import resource' >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 not installed";
  const std::string dir = test::temp_dir();
  const std::string path = test::write_wav(dir + "/long.wav", n, [&](int64_t i) -> int16_t {
    if (i < j) return static_cast<int16_t>(jfk[static_cast<size_t>(i)] * 32768.0f);
    if (i >= j + noise) return static_cast<int16_t>(jfk[static_cast<size_t>(i - j - noise)] * 32768.0f);
    x = x * 1664525u + 1013904223u;
    return static_cast<int16_t>(static_cast<int>(x >> 26) - 32);  // about -60 dB
  });
  const std::string vad = "transcribe --beam-size 0 --model " + model_ + " --vad --vad-model " + data_ +
                          "/vad/for-tests-silero-v6.2.0-ggml.bin ";
  const long short_kb = cli_peak_kb(dir, vad + jfk_), long_kb = cli_peak_kb(dir, vad + path);
  fs::remove(path);  // 38 MB
  ASSERT_GT(short_kb, 0);
  ASSERT_GT(long_kb, 0);
  const double decoded_mb = static_cast<double>(n) * sizeof(float) / 1e6;
  const double growth_mb = static_cast<double>(long_kb - short_kb) / 1e3;
  std::printf("  peak resident size: jfk %.1f MB, %.0f MB of samples %.1f MB\n", short_kb / 1e3, decoded_mb, long_kb / 1e3);
  EXPECT_LT(growth_mb, decoded_mb / 4);
}

// `auris stream` on raw PCM from standard input, as a program reads it: JSON lines, committed words
// that add up to the transcript, tentative events, and the end's figures.
TEST_F(Cli, StreamsRawPcmFromStdinAsJsonLines) {
  const std::string dir = test::temp_dir();
  const std::vector<float> jfk = load_audio(jfk_);
  {
    std::ofstream raw(dir + "/jfk.raw", std::ios::binary);
    for (float x : jfk) {
      const int16_t v = static_cast<int16_t>(std::lround(x * 32768.0f));
      raw.put(static_cast<char>(v & 0xff)).put(static_cast<char>((v >> 8) & 0xff));
    }
  }
  const RunResult r = run_cli("stream --model " + model_ + " --beam-size 0 --step-ms 1000 -f jsonl - < " + dir + "/jfk.raw");
  ASSERT_EQ(r.status, 0) << r.err;
  std::string committed;
  int tentative = 0, ends = 0;
  double last_time = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json event = nlohmann::json::parse(line);
    const std::string type = event.at("type");
    EXPECT_GE(event.at("time").get<double>(), last_time);
    last_time = event.at("time");
    if (type == "committed") {
      std::string joined;
      for (const auto& w : event.at("words")) joined += w.at("word").get<std::string>();
      EXPECT_EQ(words(joined), words(event.at("text")));
      committed += joined;
    } else if (type == "tentative") {
      ++tentative;
    } else if (type == "end") {
      ++ends;
      EXPECT_NEAR(event.at("audio_seconds").get<double>(), jfk.size() / 16000.0, 0.01);
      EXPECT_GT(event.at("decodes").get<int>(), 5);
    }
  }
  EXPECT_EQ(words(committed), "and so my fellow americans ask not what your country can do for you ask what you can do for your country");
  EXPECT_GT(tentative, 0);
  EXPECT_EQ(ends, 1);
}

TEST_F(Cli, StreamsAFileAsTextLines) {
  const RunResult r = run_cli("stream --model " + model_ + " --beam-size 0 " + jfk_);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("[", 0), 0u) << r.out;  // "[    0.00 -->     1.20] And so, ..."
  std::string text;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) text += " " + line.substr(line.find(']') + 1);
  EXPECT_NE(words(text).find("ask not what your country can do for you"), std::string::npos) << r.out;
}

TEST_F(Cli, StreamBadInputFailsCleanly) {
  const std::string dir = test::temp_dir();
  std::ofstream(dir + "/odd.raw", std::ios::binary) << "abc";  // a sample and a half
  expect_clean_failure(run_cli("stream --model " + model_ + " - < " + dir + "/odd.raw"), "odd number of bytes");
  expect_clean_failure(run_cli("stream --model " + model_ + " --input-format alsa no-such-microphone"), "cannot open the alsa device");
  expect_clean_failure(run_cli("stream --model " + model_ + " --input-format no-such-format x"), "no input format");
  expect_clean_failure(run_cli("stream --model " + model_ + " " + dir + "/missing.wav"), "not found");
  EXPECT_NE(run_cli("stream --model " + model_ + " --step-ms 5 " + jfk_).status, 0);
  expect_clean_failure(run_cli("stream --model " + model_ + " --vad --vad-model " + dir + "/none.bin " + jfk_), "none.bin");
}

TEST(CliWer, ScoresTranscriptsAfterNormalisation) {
  const std::string dir = test::temp_dir();
  std::ofstream(dir + "/ref.txt") << "Mr. Smith paid twenty dollars.\nThe colour is grey\n";
  std::ofstream(dir + "/same.txt") << "mister smith paid $20\nthe color is gray\n";
  std::ofstream(dir + "/off.txt") << "mister smith paid $20\nthe color was gray\n";
  const RunResult same = run_cli("wer " + dir + "/ref.txt " + dir + "/same.txt");
  ASSERT_EQ(same.status, 0) << same.err;
  EXPECT_NE(same.out.find("WER 0.0000"), std::string::npos) << same.out;
  const RunResult off = run_cli("wer " + dir + "/ref.txt " + dir + "/off.txt");
  EXPECT_NE(off.out.find("S=1"), std::string::npos) << off.out;
  expect_clean_failure(run_cli("wer " + dir + "/missing.txt " + dir + "/off.txt"), "missing.txt");
}

}  // namespace
}  // namespace auris
