#include "auris/audio.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "audio/audio_fixtures_for_tests.h"
#include "auris/error.h"

namespace fs = std::filesystem;

namespace auris {
namespace {

std::vector<int16_t> to_s16(const std::vector<float>& samples) {
  std::vector<int16_t> out(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) out[i] = static_cast<int16_t>(std::lround(samples[i] * 32768.0f));
  return out;
}

// Every sample equals openai's load_audio output (ffmpeg CLI to s16le, / 32768): same count, same
// CRC-32 of the s16 bytes, same sum, and the stored every-k-th samples (for a readable failure).
void expect_matches_reference(const std::vector<float>& samples, const nlohmann::json& ref) {
  ASSERT_EQ(samples.size(), ref["n_samples"].get<size_t>());
  const std::vector<int16_t> s16 = to_s16(samples);
  for (size_t i = 0; i < samples.size(); ++i) {
    ASSERT_EQ(samples[i], s16[i] / 32768.0f) << "sample " << i << " is not an s16 value / 32768";
  }
  const auto stride = test::audio_fixture_index()["sample_stride"].get<size_t>();
  const auto strided = test::read_fixture_array<int16_t>(ref["samples_file"]);
  ASSERT_EQ(strided.size(), (samples.size() + stride - 1) / stride);
  for (size_t i = 0; i < strided.size(); ++i) ASSERT_EQ(s16[i * stride], strided[i]) << "sample " << i * stride;
  const uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(s16.data()), static_cast<uInt>(s16.size() * 2));
  EXPECT_EQ(crc, ref["crc32_s16le"].get<uLong>());
  double sum = 0;
  for (float v : samples) sum += v;
  EXPECT_DOUBLE_EQ(sum, ref["sum"].get<double>());
}

TEST(LoadAudio, EqualsWhispersLoadAudio) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const auto index = test::audio_fixture_index();
  ASSERT_GE(index["audio"].size(), 4u);
  for (const auto& ref : index["audio"]) {
    SCOPED_TRACE(ref["file"].get<std::string>());
    expect_matches_reference(load_audio(data + "/" + ref["file"].get<std::string>()), ref);
  }
}

// jfk.flac (44.1 kHz stereo 24-bit) and jfk.wav (16 kHz mono) are the same recording; after
// downmixing and resampling they agree to within one s16 step.
TEST(LoadAudio, FlacAndWavOfTheSameSpeechAgree) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const auto flac = load_audio(data + "/audio/jfk.flac");
  const auto wav = load_audio(data + "/audio/jfk.wav");
  ASSERT_EQ(flac.size(), wav.size());
  ASSERT_EQ(flac.size(), 176000u);  // 11 s at 16 kHz
  float max_diff = 0;
  for (size_t i = 0; i < flac.size(); ++i) max_diff = std::max(max_diff, std::abs(flac[i] - wav[i]));
  EXPECT_LE(max_diff, 1.0f / 32768.0f);
}

// An 8 kHz file comes out at twice as many 16 kHz samples (plus the resampler's rounding).
TEST(LoadAudio, ResamplesEightKilohertzToSixteen) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const auto ref = test::reference_audio("audio/digits-8k/0_george_0.wav");
  const auto samples = load_audio(data + "/audio/digits-8k/0_george_0.wav");
  const auto source_bytes = fs::file_size(data + "/audio/digits-8k/0_george_0.wav");
  EXPECT_NEAR(static_cast<double>(samples.size()), (source_bytes - 44) / 2 * 2.0, 4.0);
  expect_matches_reference(samples, ref);
}

// A count of channels FFmpeg knows no layout for is downmixed as their average: channel c holds
// (c + 1) * 1000 throughout, so every sample is the average, 5000.
TEST(LoadAudio, ChannelsWithNoUsualLayoutAreAveraged) {
  for (const uint16_t channels : {9, 12, 32}) {
    const std::string path = test::temp_dir() + "/channels-" + std::to_string(channels) + ".wav";
    const uint32_t frames = 1600;
    std::string wav = "RIFF";
    auto u32 = [&](uint32_t v) { wav.append(reinterpret_cast<const char*>(&v), 4); };
    auto u16 = [&](uint16_t v) { wav.append(reinterpret_cast<const char*>(&v), 2); };
    u32(36 + frames * channels * 2);
    wav += "WAVEfmt ";
    u32(16), u16(1), u16(channels), u32(16000), u32(16000 * 2 * channels), u16(2 * channels), u16(16);
    wav += "data";
    u32(frames * channels * 2);
    for (uint32_t f = 0; f < frames; ++f)
      for (uint16_t c = 0; c < channels; ++c) u16(static_cast<uint16_t>(1000 * (c + 1)));
    std::ofstream(path, std::ios::binary) << wav;
    const std::vector<float> samples = load_audio(path);
    ASSERT_EQ(samples.size(), frames) << channels << " channels";
    const float average = 1000.0f * (channels + 1) / 2 / 32768.0f;
    for (size_t i = 0; i < samples.size(); ++i) ASSERT_NEAR(samples[i], average, 1.0f / 32768) << channels << " channels, sample " << i;
  }
}

// The s16 samples the ffmpeg CLI writes for path with these output options; empty where it fails.
std::vector<int16_t> ffmpeg_s16(const std::string& path, const std::string& options) {
  std::vector<int16_t> out;
  FILE* pipe = popen(("ffmpeg -nostdin -loglevel error -i '" + path + "' " + options + " -f s16le - 2>/dev/null").c_str(), "r");
  if (!pipe) return out;
  int16_t block[4096];
  for (size_t n; (n = fread(block, sizeof(int16_t), 4096, pipe)) > 0;) out.insert(out.end(), block, block + n);
  pclose(pipe);
  return out;
}

// faster-whisper's decode_audio(split_stereo=True): the audio converted to stereo at 16 kHz, then
// split, here the ffmpeg CLI's `-ac 2 -ar 16000` (the same resampler, swresample, with its defaults,
// as PyAV's). A stereo file keeps its two channels apart; a mono file's one channel is in both.
TEST(LoadStereoAudio, GivesEachChannelAsTheFfmpegCliSplitsThem) {
  if (std::system("command -v ffmpeg >/dev/null 2>&1") != 0) GTEST_SKIP() << "ffmpeg CLI not installed";
  const std::string dir = test::temp_dir();
  const std::string two = dir + "/call.wav";  // 44.1 kHz: left a 440-Hz tone, right 1 kHz
  const uint32_t frames = 44100;
  std::string wav = "RIFF";
  auto u32 = [&](uint32_t v) { wav.append(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [&](uint16_t v) { wav.append(reinterpret_cast<const char*>(&v), 2); };
  u32(36 + frames * 4);
  wav += "WAVEfmt ";
  u32(16), u16(1), u16(2), u32(44100), u32(44100 * 4), u16(4), u16(16);
  wav += "data";
  u32(frames * 4);
  for (uint32_t f = 0; f < frames; ++f) {
    u16(static_cast<uint16_t>(static_cast<int16_t>(std::lround(8000 * std::sin(2 * M_PI * 440 * f / 44100.0)))));
    u16(static_cast<uint16_t>(static_cast<int16_t>(std::lround(6000 * std::sin(2 * M_PI * 1000 * f / 44100.0)))));
  }
  std::ofstream(two, std::ios::binary) << wav;
  for (const std::string& path : {two, test::shared_data_dir() + "/audio/jfk.flac"}) {
    const std::vector<int16_t> reference = ffmpeg_s16(path, "-ac 2 -ar 16000");
    ASSERT_FALSE(reference.empty()) << path;
    const StereoAudio audio = load_stereo_audio(path);
    ASSERT_EQ(audio.left.size() * 2, reference.size()) << path;
    ASSERT_EQ(audio.right.size(), audio.left.size()) << path;
    for (size_t i = 0; i < audio.left.size(); ++i) {
      ASSERT_EQ(audio.left[i], reference[2 * i] / 32768.0f) << path << ", left sample " << i;
      ASSERT_EQ(audio.right[i], reference[2 * i + 1] / 32768.0f) << path << ", right sample " << i;
    }
  }
  // The two tones stay apart: the left channel is the 440-Hz one (its 8000 peak), the right the other.
  const StereoAudio call = load_stereo_audio(two);
  const auto peak = [](const std::vector<float>& x) {
    float p = 0;
    for (float v : x) p = std::max(p, std::abs(v));
    return p;
  };
  EXPECT_NEAR(peak(call.left) * 32768, 8000, 200);
  EXPECT_NEAR(peak(call.right) * 32768, 6000, 200);
}

TEST(LoadAudio, ReadsStandardInput) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const std::string path = data + "/audio/jfk.flac";
  std::vector<float> samples;
  ASSERT_EQ(test::error_of_with_stdin(path, [&] { samples = load_audio("-"); }), "(no error)");
  expect_matches_reference(samples, test::reference_audio("audio/jfk.flac"));
}

// --- bad input: always an auris::Error whose message names the problem, never a crash or hang ---

std::string error_of(const std::string& path) {
  try {
    load_audio(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string head_of(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(n, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(n));
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

TEST(LoadAudioErrors, MissingFile) {
  const std::string path = test::temp_dir() + "/nothing-here.wav";
  EXPECT_NE(error_of(path).find("not found"), std::string::npos) << error_of(path);
  EXPECT_NE(error_of("").find("no audio file"), std::string::npos);
}

TEST(LoadAudioErrors, Directory) {
  EXPECT_NE(error_of(test::temp_dir()).find("is a directory"), std::string::npos);
}

TEST(LoadAudioErrors, EmptyFile) {
  const std::string path = test::temp_dir() + "/empty.flac";
  write_file(path, "");
  EXPECT_NE(error_of(path).find("empty (0 bytes)"), std::string::npos) << error_of(path);
}

TEST(LoadAudioErrors, TextNamedAsAudio) {
  const std::string dir = test::temp_dir();
  for (const char* name : {"/notes.mp3", "/notes.wav", "/notes.flac", "/notes.ogg"}) {
    std::string text;
    for (int i = 0; i < 200; ++i) text += "This is a shopping list, not a song. Eggs, milk, bread.\n";
    write_file(dir + name, text);
    const std::string e = error_of(dir + name);
    EXPECT_NE(e.find(dir + name), std::string::npos) << e;
    EXPECT_EQ(e.find("(no error)"), std::string::npos) << name;
  }
}

TEST(LoadAudioErrors, RandomBytesNamedAsAudio) {
  const std::string path = test::temp_dir() + "/noise.m4a";
  std::string bytes(5000, '\0');
  uint32_t x = 12345;
  for (char& c : bytes) c = static_cast<char>((x = x * 1664525u + 1013904223u) >> 24);
  write_file(path, bytes);
  EXPECT_NE(error_of(path), "(no error)");
}

// A subtitle file is a container FFmpeg opens, with a stream that is not audio.
TEST(LoadAudioErrors, NoAudioStream) {
  const std::string path = test::temp_dir() + "/captions.srt";
  write_file(path, "1\n00:00:00,000 --> 00:00:01,500\nHello there.\n\n2\n00:00:02,000 --> 00:00:03,000\nBye.\n\n");
  EXPECT_NE(error_of(path).find("no audio stream"), std::string::npos) << error_of(path);
}

// Cut short, a file gives the audio that is there: the same samples as the whole file's, up to
// where the cut (and the resampler's few samples of look-ahead) reaches.
TEST(LoadAudioErrors, TruncatedFileDecodesWhatIsThere) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const std::string dir = test::temp_dir();
  const auto index = test::audio_fixture_index();
  const auto stride = index["sample_stride"].get<size_t>();
  for (const char* name : {"jfk.wav", "jfk.flac"}) {
    SCOPED_TRACE(name);
    const std::string source = data + "/audio/" + name;
    const std::string cut = dir + "/cut-" + name;
    write_file(cut, head_of(source, fs::file_size(source) / 3 + 1));  // +1: mid-sample for the WAV
    const auto samples = to_s16(load_audio(cut));
    const auto reference = test::read_fixture_array<int16_t>(test::reference_audio("audio/" + std::string(name))["samples_file"]);
    EXPECT_GT(samples.size(), 176000u / 4);
    EXPECT_LT(samples.size(), 176000u / 2);
    const size_t comparable = (samples.size() - 100) / stride;
    for (size_t i = 0; i < comparable; ++i) ASSERT_EQ(samples[i * stride], reference[i]) << "sample " << i * stride;
  }
}

TEST(LoadAudioErrors, TruncatedToTheHeader) {
  AURIS_REQUIRE_SHARED_DATA(data);
  const std::string dir = test::temp_dir();
  for (const char* name : {"jfk.wav", "jfk.flac"}) {
    for (size_t bytes : {4u, 20u, 44u}) {
      const std::string cut = dir + "/" + std::to_string(bytes) + "-" + name;
      write_file(cut, head_of(data + "/audio/" + name, bytes));
      EXPECT_NE(error_of(cut), "(no error)") << cut;
    }
  }
}

// A WAV header claiming a rate no recording has, with 8 bytes of 8-bit samples: refused at once
// (at 1 GHz the resampler took 13 s and 1.3 GB to set up; at 10 Hz a second of data is 1,600 s).
TEST(LoadAudioErrors, SampleRatesNoRecordingHas) {
  const std::string dir = test::temp_dir();
  for (const uint32_t rate : {1073742144u, 800000u, 10u}) {
    std::string wav = "RIFF";
    auto u32 = [&](uint32_t v) { wav.append(reinterpret_cast<const char*>(&v), 4); };
    auto u16 = [&](uint16_t v) { wav.append(reinterpret_cast<const char*>(&v), 2); };
    u32(36 + 8);
    wav += "WAVEfmt ";
    u32(16), u16(1), u16(1), u32(rate), u32(rate), u16(1), u16(8);  // PCM, mono, 8-bit
    wav += "data";
    u32(8);
    wav += std::string("\x80\x90\xa0\xb0\x80\x70\x60\x50", 8);
    const std::string path = dir + "/rate-" + std::to_string(rate) + ".wav";
    write_file(path, wav);
    const std::string e = error_of(path);
    EXPECT_NE(e.find("sample rate is " + std::to_string(rate) + " Hz"), std::string::npos) << e;
  }
}

// Starts the peak resident memory again from the current one (/proc/PID/clear_refs's "5", Linux 4.0);
// false where the kernel cannot.
bool reset_peak_memory() { return static_cast<bool>(std::ofstream("/proc/self/clear_refs") << "5" << std::flush); }
// The peak resident memory, in kB (VmHWM); -1 where /proc does not say.
long peak_memory_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// FFmpeg allocates what a file's headers declare before it reads it: a 60-byte WAV whose metadata
// (LIST/INFO) declares a 2-GB title made it zero 2 GB, in 10 to 20 s (a finding of scripts/fuzz.sh).
// The read fails at once, and the memory never goes.
TEST(LoadAudioErrors, DeclaredSizesCannotMakeFfmpegAllocateGigabytes) {
  std::string wav = "RIFF";
  auto u32 = [&](uint32_t v) { wav.append(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [&](uint16_t v) { wav.append(reinterpret_cast<const char*>(&v), 2); };
  u32(0x7ffffff0u);
  wav += "WAVEfmt ";
  u32(16), u16(1), u16(1), u32(16000), u32(32000), u16(2), u16(16);  // PCM, mono, 16 kHz, 16-bit
  wav += "LIST";
  u32(0xf800001au);  // the chunk's size: past the file's end
  wav += "INFOINAM";
  u32(0x7f000000u);  // the title's size: 2 GB, inside the chunk's
  wav += "a title";
  const std::string path = test::temp_dir() + "/huge-title.wav";
  write_file(path, wav);
  if (!reset_peak_memory() || peak_memory_kb() < 0) GTEST_SKIP() << "this kernel cannot reset the peak resident memory";
  const long before_kb = peak_memory_kb();
  const std::string e = error_of(path);
  EXPECT_NE(e.find("cannot read " + path + " as audio"), std::string::npos) << e;
  EXPECT_LT(peak_memory_kb() - before_kb, 256 * 1024) << "kB more at the peak";
}

TEST(LoadAudioErrors, EmptyStandardInput) {
  std::string e;
  test::error_of_with_stdin("/dev/null", [&] { e = error_of("-"); });
  EXPECT_NE(e.find("standard input"), std::string::npos) << e;
}

}  // namespace
}  // namespace auris
