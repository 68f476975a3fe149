#include "test_support.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "auris/error.h"
#include "auris/model.h"

namespace fs = std::filesystem;

namespace auris::test {

std::string shared_data_dir() {
  if (const char* env = std::getenv("AURIS_TEST_DATA")) return env;
  fs::path p = fs::path(AURIS_SOURCE_DIR) / ".." / "shared" / "data";
  return fs::is_directory(p) ? fs::canonical(p).string() : std::string();
}

std::string model_cache_dir() { return auris::model_cache_dir(); }

std::string cached_model(const std::string& name) {
  fs::path p = fs::path(model_cache_dir()) / name;
  return fs::exists(p / "model.bin") ? p.string() : std::string();
}

std::string fixtures_dir() { return (fs::path(AURIS_SOURCE_DIR) / "tests" / "fixtures").string(); }

std::string cli_path() { return AURIS_CLI_PATH; }

namespace {

// The directories this process's tests made, removed at its exit once every test passed (a failed
// test's files stay for a look).
struct TestDirectories {
  std::vector<fs::path> made;
  ~TestDirectories() {
    if (!::testing::UnitTest::GetInstance()->Passed()) return;
    std::error_code ignored;
    for (const fs::path& p : made) fs::remove_all(p, ignored);
  }
};

TestDirectories& test_directories() {
  static TestDirectories directories;
  return directories;
}

}  // namespace

std::string temp_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  // The user's and the process's: runs side by side (two clones, ctest's parallel processes, two
  // users) never empty each other's directories.
  fs::path p = fs::temp_directory_path() / ("auris-tests-" + std::to_string(::getuid())) /
               (std::string(info->test_suite_name()) + "." + info->name() + "." + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  test_directories().made.push_back(p);
  return p.string();
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string error_of_with_stdin(const std::string& path, const std::function<void()>& f) {
  const int file = ::open(path.c_str(), O_RDONLY);
  if (file < 0) return "cannot open " + path + " for standard input";
  const int saved_stdin = ::dup(0);
  ::dup2(file, 0);
  ::close(file);
  const std::string error = error_of(f);
  ::dup2(saved_stdin, 0);
  ::close(saved_stdin);
  return error;
}

std::string write_wav(const std::string& path, int64_t num_samples, const std::function<int16_t(int64_t)>& sample) {
  auto le = [](std::ofstream& out, uint32_t v, int bytes) {
    for (int b = 0; b < bytes; ++b) out.put(static_cast<char>((v >> (8 * b)) & 0xff));
  };
  std::ofstream out(path, std::ios::binary);
  const uint32_t data_bytes = static_cast<uint32_t>(num_samples) * 2;
  out.write("RIFF", 4);
  le(out, 36 + data_bytes, 4);
  out.write("WAVEfmt ", 8);
  le(out, 16, 4);
  le(out, 1, 2);      // PCM
  le(out, 1, 2);      // mono
  le(out, 16000, 4);  // rate
  le(out, 32000, 4);  // bytes per second
  le(out, 2, 2);      // block align
  le(out, 16, 2);     // bits
  out.write("data", 4);
  le(out, data_bytes, 4);
  std::vector<int16_t> block;
  for (int64_t at = 0; at < num_samples;) {
    block.clear();
    for (const int64_t end = std::min<int64_t>(num_samples, at + 65536); at < end; ++at) block.push_back(sample(at));
    out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(block.size() * 2));
  }
  if (!out) throw std::runtime_error("cannot write " + path);
  return path;
}

std::string write_wav(const std::string& path, std::span<const float> samples) {
  return write_wav(path, static_cast<int64_t>(samples.size()), [&](int64_t i) {
    return static_cast<int16_t>(std::clamp(std::lround(samples[static_cast<size_t>(i)] * 32768.0f), -32768L, 32767L));
  });
}

void expect_child_exits_cleanly(const std::function<int()>& body) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    ::_exit(body());
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace auris::test
