#include "kernels/cpu/cpu_path.h"

#include <cstdlib>

#include "auris/error.h"
#include "kernels/cpu/dispatched_kernels.h"

namespace auris {

namespace {

CpuPath parse_cpu_path(const std::string& name) {
  if (name == "scalar") return CpuPath::kScalar;
  if (name == "avx2") return CpuPath::kAvx2;
  if (name == "avx512") return CpuPath::kAvx512;
  throw Error("AURIS_CPU_PATH=" + name + " is not a CPU path: use scalar, avx2 or avx512, or unset it");
}

CpuPath choose_cpu_path() {
  const char* forced = std::getenv("AURIS_CPU_PATH");
  if (!forced || !*forced) {
    CpuPath path = best_cpu_path();
    while (!cpu_path_built(path)) path = static_cast<CpuPath>(static_cast<int>(path) - 1);
    return path;
  }
  const CpuPath path = parse_cpu_path(forced);
  if (!cpu_supports(path)) {
    throw Error("AURIS_CPU_PATH=" + std::string(forced) + ", but this CPU lacks its instructions (it supports " +
                cpu_path_name(best_cpu_path()) + "): unset AURIS_CPU_PATH or choose a narrower path");
  }
  if (!cpu_path_built(path)) {
    throw Error("AURIS_CPU_PATH=" + std::string(forced) +
                ", but this build left that path out (CMake's AURIS_CPU_PATHS): unset AURIS_CPU_PATH");
  }
  return path;
}

}  // namespace

bool cpu_supports(CpuPath path) {
  __builtin_cpu_init();
  switch (path) {
    case CpuPath::kScalar: return true;
    case CpuPath::kAvx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
    case CpuPath::kAvx512:
      return cpu_supports(CpuPath::kAvx2) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx512vnni");
  }
  return false;
}

CpuPath best_cpu_path() {
  if (cpu_supports(CpuPath::kAvx512)) return CpuPath::kAvx512;
  if (cpu_supports(CpuPath::kAvx2)) return CpuPath::kAvx2;
  return CpuPath::kScalar;
}

CpuPath cpu_path() {
  static const CpuPath chosen = choose_cpu_path();  // a throw leaves it unset: the next call throws again
  return chosen;
}

std::string cpu_path_name(CpuPath path) {
  switch (path) {
    case CpuPath::kScalar: return "scalar";
    case CpuPath::kAvx2: return "avx2";
    case CpuPath::kAvx512: return "avx512";
  }
  return "unknown";
}

}  // namespace auris
