#include "output/output_writer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "auris/error.h"
#include "auris/output.h"
#include "output/output_fixtures_for_tests.h"

namespace auris {
namespace {

namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> directory_listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(OutputWriter, AudioBasenameMatchesPythonSplitext) {
  const auto cases = test::read_output_fixture("primitives.json").at("audio_basenames");
  ASSERT_GT(cases.size(), 10u);
  for (const auto& [path, expected] : cases.items())
    EXPECT_EQ(output::audio_basename(path), expected.get<std::string>()) << path;
}

TEST(OutputWriter, AllWritesTheFilesOpenaiWritesWithTheSameContent) {
  const auto primitives = test::read_output_fixture("primitives.json");
  const auto fixture = test::output_results_fixture("with_words");
  const Transcript transcript = test::transcript_from_fixture(fixture.at("result"));
  const std::string dir = test::temp_dir() + "/new/nested";  // created as openai's cli() does

  const auto written = write_transcript(transcript, "some/dir/talk.final.flac", dir, "all");
  EXPECT_EQ(written, (std::vector<std::string>{dir + "/talk.final.txt", dir + "/talk.final.vtt",
                                               dir + "/talk.final.srt", dir + "/talk.final.tsv",
                                               dir + "/talk.final.json"}));
  EXPECT_EQ(directory_listing(dir), primitives.at("all_files").get<std::vector<std::string>>());
  EXPECT_EQ(read_file(dir + "/talk.final.txt"), fixture.at("txt").get<std::string>());
  EXPECT_EQ(read_file(dir + "/talk.final.tsv"), fixture.at("tsv").get<std::string>());
  EXPECT_EQ(read_file(dir + "/talk.final.json"), fixture.at("json").get<std::string>());
  const auto& plain = fixture.at("subtitles").at(0);  // no options set
  ASSERT_TRUE(plain.at("options").at("max_line_width").is_null());
  ASSERT_FALSE(plain.at("options").at("highlight_words").get<bool>());
  const auto& outputs = fixture.at("subtitle_outputs");
  EXPECT_EQ(read_file(dir + "/talk.final.vtt"), outputs.at(plain.at("vtt").get<size_t>()).get<std::string>());
  EXPECT_EQ(read_file(dir + "/talk.final.srt"), outputs.at(plain.at("srt").get<size_t>()).get<std::string>());
}

TEST(OutputWriter, OneFormatWritesOneFileAndOverwrites) {
  const std::string dir = test::temp_dir();
  Transcript t;
  t.segments.push_back(test::text_segment(" first"));
  EXPECT_EQ(write_transcript(t, "a.wav", dir, "txt"), std::vector<std::string>{dir + "/a.txt"});
  t.segments[0].text = " second";
  write_transcript(t, "a.wav", dir, "txt");
  EXPECT_EQ(read_file(dir + "/a.txt"), "second\n");
  EXPECT_EQ(directory_listing(dir), std::vector<std::string>{"a.txt"});
}

TEST(OutputWriter, FormatTranscriptGivesOneFormatAsText) {
  const auto fixture = test::output_results_fixture("non_ascii");
  const Transcript t = test::transcript_from_fixture(fixture.at("result"));
  EXPECT_EQ(format_transcript(t, "json"), fixture.at("json").get<std::string>());
  EXPECT_EQ(format_transcript(t, OutputFormat::kTxt), fixture.at("txt").get<std::string>());
}

TEST(OutputWriter, BadFormatNamesAreErrors) {
  const std::string dir = test::temp_dir();
  const Transcript t;
  EXPECT_THROW(write_transcript(t, "a.wav", dir, "docx"), Error);
  EXPECT_THROW(write_transcript(t, "a.wav", dir, "TXT"), Error);
  EXPECT_THROW(format_transcript(t, "all"), Error);  // several files, not one text
  EXPECT_THROW(parse_output_format(""), Error);
  EXPECT_TRUE(directory_listing(dir).empty());
  try {
    parse_output_formats("docx");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("txt, vtt, srt, tsv, json or all"), std::string::npos) << e.what();
  }
}

TEST(OutputWriter, UncreatableDirectoryIsAnError) {
  const std::string dir = test::temp_dir();
  std::ofstream(dir + "/file") << "x";
  try {
    write_transcript(Transcript{}, "a.wav", dir + "/file/sub", "txt");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/file/sub"), std::string::npos) << e.what();
  }
  EXPECT_THROW(write_transcript(Transcript{}, "a.wav", dir + "/file", "txt"), Error);  // a file, not a dir
}

TEST(OutputWriter, UnwritableDirectoryIsAnError) {
  const std::string dir = test::temp_dir() + "/readonly";
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0555);
  if (::access(dir.c_str(), W_OK) == 0) {  // root ignores permissions; /proc/self takes no new files
    ::chmod(dir.c_str(), 0755);
    if (!fs::is_directory("/proc/self")) GTEST_SKIP() << "no directory that even root cannot write to";
    try {
      write_transcript(Transcript{}, "a.wav", "/proc/self", "txt");
      FAIL() << "expected an error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("/proc/self/a.txt"), std::string::npos) << e.what();
    }
    return;
  }
  EXPECT_THROW(write_transcript(Transcript{}, "a.wav", dir, "all"), Error);
  ::chmod(dir.c_str(), 0755);
  EXPECT_TRUE(directory_listing(dir).empty());
}

TEST(OutputWriter, FailedRenameLeavesNoPartialFile) {
  const std::string dir = test::temp_dir();
  fs::create_directories(dir + "/a.srt");  // a directory in the way of the srt file
  Transcript t;
  t.segments.push_back(test::text_segment(" hi", 0.0, 1.0));
  try {
    write_transcript(t, "a.wav", dir, "all");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a.srt"), std::string::npos) << e.what();
  }
  // txt and vtt were complete before srt failed; no temporary file is left behind.
  EXPECT_EQ(directory_listing(dir), (std::vector<std::string>{"a.srt", "a.txt", "a.vtt"}));
  EXPECT_TRUE(fs::is_empty(dir + "/a.srt"));
}

TEST(OutputWriter, BadTranscriptFailsBeforeAnyFileIsWritten) {
  const std::string dir = test::temp_dir();
  Transcript t;
  t.segments.push_back(test::text_segment(" negative", -1.0, 1.0));
  EXPECT_THROW(write_transcript(t, "a.wav", dir, "all"), Error);
  EXPECT_THROW(write_transcript(t, "a.wav", dir, "all", test::subtitle_options(-4, {}, {})), Error);
  EXPECT_TRUE(directory_listing(dir).empty());
}

TEST(OutputWriter, InvalidUtf8IsReplacedAsPythonDecodeWould) {
  Transcript t;
  t.segments.push_back(test::text_segment(" caf\xC3"));  // a token boundary split the character
  EXPECT_EQ(format_transcript(t, "txt"), "caf\xEF\xBF\xBD\n");
  EXPECT_NE(format_transcript(t, "json").find("caf\\ufffd"), std::string::npos);
}

TEST(OutputWriter, WarnsAboutOptionsWithoutEffectLikeOpenaiCli) {
  EXPECT_TRUE(subtitle_option_warnings({}).empty());
  EXPECT_EQ(subtitle_option_warnings(test::subtitle_options({}, 2, {})).size(), 1u);
  EXPECT_EQ(subtitle_option_warnings(test::subtitle_options(20, {}, 3)).size(), 1u);
  EXPECT_TRUE(subtitle_option_warnings(test::subtitle_options(20, 2, {})).empty());
}

}  // namespace
}  // namespace auris
