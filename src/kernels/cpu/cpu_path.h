// Which build of the hand-written CPU kernels a process runs. Each kernel source is compiled once per
// path (src/kernels/cpu/CMakeLists.txt), the rest of auris once for a portable x86-64 baseline, and
// the kernels' callers reach the chosen path through src/kernels/cpu/kernel_dispatch.cc. So one binary
// runs on any x86-64 CPU and uses the widest instructions the CPU has.
#pragma once

#include <string>

namespace auris {

enum class CpuPath {
  kScalar,  // plain C++, any x86-64
  kAvx2,    // AVX2 + FMA + F16C (Haswell, Zen 1 and later)
  kAvx512,  // the AVX2 kernels in AVX-512's encoding (32 vector registers) with VNNI's int8 dot
            // products: AVX-512 F, VL, BW, DQ and VNNI (Cascade Lake, Ice Lake, Zen 4 and later)
};

// The widest path this CPU (and its operating system) supports.
CpuPath best_cpu_path();
bool cpu_supports(CpuPath path);
// The path the kernels run: $AURIS_CPU_PATH (scalar, avx2 or avx512) where set, else
// best_cpu_path(). Chosen once per process. Throws auris::Error when the variable names an unknown
// path, one this CPU lacks, or one this build left out (AURIS_CPU_PATHS in CMake).
CpuPath cpu_path();
// "scalar", "avx2", "avx512".
std::string cpu_path_name(CpuPath path);

}  // namespace auris
