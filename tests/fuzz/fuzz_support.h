// What the fuzz targets (src/**/*_fuzz.cc) share: where they write their files, and the mode of
// LLVMFuzzerInitialize that writes a seed corpus instead of fuzzing (scripts/fuzz.sh, and ctest's
// tests/fuzz/replay_seeds.sh, run it with AURIS_FUZZ_SEEDS=DIR).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace auris::fuzz {

// A path of this process's own under $AURIS_FUZZ_WORK (scripts/fuzz.sh removes it when the campaign
// ends) or the temporary directory: "auris-fuzz-NAME-PID".
inline std::filesystem::path private_path(const std::string& name) {
  const char* work = std::getenv("AURIS_FUZZ_WORK");
  const std::filesystem::path root = work ? std::filesystem::path(work) : std::filesystem::temp_directory_path();
  return root / ("auris-fuzz-" + name + "-" + std::to_string(getpid()));
}

// With AURIS_FUZZ_SEEDS=DIR: write_seeds(DIR), then exit. LLVMFuzzerInitialize's body.
inline int write_seeds_if_asked(void (*write_seeds)(const std::string& dir)) {
  if (const char* seeds = std::getenv("AURIS_FUZZ_SEEDS")) {
    write_seeds(seeds);
    std::exit(0);
  }
  return 0;
}

}  // namespace auris::fuzz
