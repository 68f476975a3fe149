// Every container and codec a user is likely to have, made from jfk with the ffmpeg command line,
// transcribes to the same text; telephone-rate audio is resampled and recognised; broken and
// audio-less files fail cleanly, silence gives an empty transcript.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "auris/audio.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace auris {
namespace {

struct CliRun {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

CliRun sh(const std::string& command, const std::string& dir) {
  const std::string out = dir + "/.stdout", err = dir + "/.stderr";
  const int raw = std::system(("timeout 300 " + command + " >" + out + " 2>" + err).c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw), slurp(out), slurp(err)};
}

class AudioFormats : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = test::shared_data_dir();
    model_ = test::cached_model("tiny.en");
    if (data_.empty() || model_.empty()) GTEST_SKIP() << "needs ../shared/data and tiny.en (scripts/fetch_models.sh)";
    if (std::system("command -v ffmpeg >/dev/null 2>&1") != 0) GTEST_SKIP() << "ffmpeg CLI not installed";
    dir_ = test::temp_dir();
  }
  // Makes dir/name from jfk.flac with the given ffmpeg output options.
  std::string make(const std::string& name, const std::string& ffmpeg_args) {
    const std::string path = dir_ + "/" + name;
    const CliRun r = sh("ffmpeg -nostdin -y -loglevel error " + ffmpeg_args + " " + path, dir_);
    EXPECT_EQ(r.status, 0) << r.err;
    return path;
  }
  // jfk in every container and codec a user is likely to have.
  std::vector<std::string> make_variants(const std::string& jfk) {
    const std::string in = "-i " + jfk;
    const std::pair<std::string, std::string> variants[] = {
        {"jfk.wav", in},                                                  // PCM WAV, source rate
        {"jfk_48k_stereo.wav", in + " -ar 48000 -ac 2"},                 // resampled + downmixed
        {"jfk.flac", in + " -c:a flac"},
        {"jfk.ogg", in + " -c:a libopus -b:a 96k"},                       // Ogg/Opus
        {"jfk.m4a", in + " -c:a aac -b:a 128k"},                          // M4A/AAC
        {"jfk.mp3", in + " -c:a libmp3lame -b:a 128k"},
        {"jfk_video.mkv", "-f lavfi -i color=c=black:s=64x64:d=11 " + in + " -shortest -c:v mpeg4 -c:a aac"},
    };
    std::vector<std::string> paths;
    for (const auto& [name, args] : variants) paths.push_back(make(name, args));
    return paths;
  }
  CliRun transcribe(const std::string& args) {
    return sh(test::cli_path() + " transcribe --beam-size 0 --model " + model_ + " " + args, dir_);
  }
  std::string data_, model_, dir_;
};

TEST_F(AudioFormats, EveryFormatGivesTheSameTranscript) {
  const std::string jfk = data_ + "/audio/jfk.flac";
  const std::vector<std::string> variants = make_variants(jfk);
  // One run over the original and every variant: the command prints one transcript line per file.
  std::string files = jfk;
  for (const std::string& path : variants) files += " " + path;
  const CliRun r = transcribe(files);
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> lines;
  for (size_t at = 0, end; (end = r.out.find('\n', at)) != std::string::npos; at = end + 1)
    lines.push_back(r.out.substr(at, end - at));
  ASSERT_EQ(lines.size(), variants.size() + 1) << r.out;
  ASSERT_NE(lines[0].find("ask not what your country"), std::string::npos) << lines[0];
  // Lossy codecs may move a comma; the words must survive every format.
  auto words = [](const std::string& s) {
    std::string w;
    for (char c : s)
      if (std::isalpha(static_cast<unsigned char>(c)) || c == ' ') w += static_cast<char>(std::tolower(c));
    return w;
  };
  for (size_t i = 0; i < variants.size(); ++i) EXPECT_EQ(words(lines[i + 1]), words(lines[0])) << variants[i];
}

// The same containers and codecs decoded (the part of the test above the sanitizers run): each gives
// jfk's length and loudness at 16 kHz mono.
TEST_F(AudioFormats, EveryFormatDecodesTheSameAudio) {
  const std::string jfk = data_ + "/audio/jfk.flac";
  const std::vector<float> reference = load_audio(jfk);
  auto rms = [](const std::vector<float>& x) {
    double sum = 0;
    for (float v : x) sum += double(v) * v;
    return std::sqrt(sum / static_cast<double>(x.size()));
  };
  for (const std::string& path : make_variants(jfk)) {
    SCOPED_TRACE(path);
    const std::vector<float> samples = load_audio(path);
    EXPECT_NEAR(static_cast<double>(samples.size()), static_cast<double>(reference.size()), 0.05 * 16000);
    EXPECT_NEAR(rms(samples), rms(reference), 0.1 * rms(reference));
  }
}

TEST_F(AudioFormats, RawPcmFromStdin) {
  const std::string wav = make("jfk16k.wav", "-i " + data_ + "/audio/jfk.flac -ar 16000 -ac 1");
  const CliRun r = sh("cat " + wav + " | " + test::cli_path() + " transcribe --beam-size 0 --model " + model_ + " -", dir_);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("ask not what your country"), std::string::npos) << r.out;
}

TEST_F(AudioFormats, EightKilohertzDigitIsRecognised) {
  // Free Spoken Digit Dataset: 8 kHz, the label is the file name's first character.
  const CliRun r = transcribe(data_ + "/audio/digits-8k/7_george_0.wav");
  ASSERT_EQ(r.status, 0) << r.err;
  std::string lower;
  for (char c : r.out) lower += static_cast<char>(std::tolower(c));
  EXPECT_TRUE(lower.find("seven") != std::string::npos || lower.find('7') != std::string::npos) << r.out;
}

TEST_F(AudioFormats, SilenceIsAnEmptyTranscriptNotAnError) {
  const std::string silence = make("silence.wav", "-f lavfi -i anullsrc=r=16000:cl=mono -t 20");
  const CliRun r = transcribe(silence);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find_first_not_of(" \n"), std::string::npos) << r.out;
}

TEST_F(AudioFormats, BrokenFilesFailCleanly) {
  const std::string mp3 = make("full.mp3", "-i " + data_ + "/audio/jfk.flac -c:a libmp3lame");
  const std::string bytes = slurp(mp3);
  {  // a download cut off in its first frames
    std::ofstream(dir_ + "/cut.mp3", std::ios::binary) << bytes.substr(0, 300);
  }
  const std::string video_only = make("video_only.mkv", "-f lavfi -i color=c=black:s=64x64:d=2 -c:v mpeg4");
  for (const std::string& bad : {dir_ + "/cut.mp3", video_only}) {
    SCOPED_TRACE(bad);
    const CliRun r = transcribe(bad);
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_NE(r.err.find("auris: error:"), std::string::npos) << r.err;
  }
  // A truncated file that still holds most of its frames transcribes what is there.
  std::ofstream(dir_ + "/half.mp3", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  const CliRun half = transcribe(dir_ + "/half.mp3");
  EXPECT_EQ(half.status, 0) << half.err;
  EXPECT_NE(half.out.find("fellow Americans"), std::string::npos) << half.out;
}

}  // namespace
}  // namespace auris
