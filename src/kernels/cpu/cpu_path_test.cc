// The CPU path chosen against what /proc/cpuinfo says the CPU has (a source independent of the
// compiler's __builtin_cpu_supports), and against $AURIS_CPU_PATH, which ctest sets for the
// CpuPaths.KernelTests.* runs.
#include "kernels/cpu/cpu_path.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "kernels/cpu/dispatched_kernels.h"

namespace auris {
namespace {

std::set<std::string> cpuinfo_flags() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

TEST(CpuPath, BestPathIsWhatCpuinfoSays) {
  const std::set<std::string> flags = cpuinfo_flags();
  if (flags.empty()) GTEST_SKIP() << "no flags line in /proc/cpuinfo";
  auto has = [&](std::initializer_list<const char*> names) {
    for (const char* n : names)
      if (!flags.count(n)) return false;
    return true;
  };
  const bool avx2 = has({"avx2", "fma", "f16c"});
  const bool avx512 = avx2 && has({"avx512f", "avx512vl", "avx512bw", "avx512dq", "avx512_vnni"});
  EXPECT_EQ(cpu_supports(CpuPath::kAvx2), avx2);
  EXPECT_EQ(cpu_supports(CpuPath::kAvx512), avx512);
  EXPECT_TRUE(cpu_supports(CpuPath::kScalar));
  EXPECT_EQ(best_cpu_path(), avx512 ? CpuPath::kAvx512 : avx2 ? CpuPath::kAvx2 : CpuPath::kScalar);
}

TEST(CpuPath, ChosenPathIsTheForcedOneOrTheBestBuilt) {
  const char* forced = std::getenv("AURIS_CPU_PATH");
  if (forced && *forced) {
    EXPECT_EQ(cpu_path_name(cpu_path()), forced);
  } else {
    CpuPath best = best_cpu_path();
    while (!cpu_path_built(best)) best = static_cast<CpuPath>(static_cast<int>(best) - 1);
    EXPECT_EQ(cpu_path(), best);
  }
}

}  // namespace
}  // namespace auris
