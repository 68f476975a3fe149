#include "test_support.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

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

std::string temp_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path p = fs::temp_directory_path() / "auris-tests" /
               (std::string(info->test_suite_name()) + "." + info->name());
  fs::remove_all(p);
  fs::create_directories(p);
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

}  // namespace auris::test
