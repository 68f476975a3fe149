// Where tests find their inputs: ../shared/data beside the repository, and the model cache that
// scripts/fetch_models.sh fills. Tests that need what is absent skip with a message saying how to
// get it, so the suite runs anywhere.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <span>
#include <string>

#include "auris/model.h"

namespace auris {
// Parameterised suites print a compute type by its name.
inline void PrintTo(ComputeType type, std::ostream* os) { *os << compute_type_name(type); }
}  // namespace auris

namespace auris::test {

// ../shared/data relative to the source tree, or $AURIS_TEST_DATA; "" when absent.
std::string shared_data_dir();
// The cache directory holding fetched models: $AURIS_MODEL_DIR or ~/.cache/auris/models.
std::string model_cache_dir();
// Path of a cached test model ("tiny.en", "base"), or "" when it has not been fetched.
std::string cached_model(const std::string& name);
// Reference fixtures written by tools/reference/golden.py (tests/fixtures).
std::string fixtures_dir();
// The `auris` command built beside the tests.
std::string cli_path();
// A fresh empty temporary directory for the calling test (a second call empties it again), removed
// when the process ends with every test passed.
std::string temp_dir();
// The message of the auris::Error that f throws, or "(no error)".
std::string error_of(const std::function<void()>& f);
// error_of(f) with standard input reading the file at path ("/dev/null": an empty stream); standard
// input is restored afterwards.
std::string error_of_with_stdin(const std::string& path, const std::function<void()>& f);

// Runs body in a forked child, SIGINT and SIGTERM at their defaults there (a CI runner's background
// job starts with them ignored), and expects it to exit with 0, not a signal: for what changes the
// whole process, such as its signal handlers and signal stacks.
void expect_child_exits_cleanly(const std::function<int()>& body);

// Writes a 16 kHz mono s16 WAV file of num_samples samples, sample(i) the i-th, a block at a time
// (a long file is never held in memory); returns path.
std::string write_wav(const std::string& path, int64_t num_samples, const std::function<int16_t(int64_t)>& sample);
// The same of samples in [-1, 1], times 32768: load_audio's samples come back exactly.
std::string write_wav(const std::string& path, std::span<const float> samples);

// A suite whose tests share tiny.en, loaded once before them and freed after them, and read
// ../shared/data (data_). Each test skips, saying how to get them, when either is missing; a suite
// that sets up more overrides SetUp, calls this one first and returns if IsSkipped().
class TinyEnSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string path = cached_model("tiny.en");
    if (!path.empty()) model_ = Model::load(path);
  }
  static void TearDownTestSuite() { model_.reset(); }
  void SetUp() override {
    data_ = shared_data_dir();
    if (!model_ || data_.empty()) GTEST_SKIP() << "needs tiny.en (scripts/fetch_models.sh) and ../shared/data";
  }

  inline static std::shared_ptr<const Model> model_;
  std::string data_;
};

}  // namespace auris::test

#define AURIS_REQUIRE_SHARED_DATA(dir)                                                               \
  const std::string dir = ::auris::test::shared_data_dir();                                         \
  if (dir.empty()) GTEST_SKIP() << "../shared/data not found (set AURIS_TEST_DATA to the test data)"

#define AURIS_REQUIRE_MODEL(var, name)                                                               \
  const std::string var = ::auris::test::cached_model(name);                                        \
  if (var.empty()) GTEST_SKIP() << "model " name " not cached: run scripts/fetch_models.sh"
