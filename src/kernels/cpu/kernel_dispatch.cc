// The auris:: kernels the rest of the code calls, each forwarding to the CPU path chosen once per
// process (cpu_path.h). CMake defines AURIS_CPU_PATH_<NAME>_BUILT for each path it compiled.
#include "kernels/cpu/dispatched_kernels.h"

#include "auris/error.h"

namespace auris {

namespace {

#define AURIS_KERNEL_POINTER(type, name, parameters, arguments) type(*name) parameters;
struct KernelTable {
  AURIS_CPU_KERNELS(AURIS_KERNEL_POINTER)
};
#undef AURIS_KERNEL_POINTER

}  // namespace

// Each path's table, inside its namespace so that the names find that path's kernels.
#define AURIS_KERNEL_ENTRY(type, name, parameters, arguments) &name,
#if AURIS_CPU_PATH_SCALAR_BUILT
namespace cpu_scalar {
constexpr KernelTable kKernels = {AURIS_CPU_KERNELS(AURIS_KERNEL_ENTRY)};
}
#endif
#if AURIS_CPU_PATH_AVX2_BUILT
namespace cpu_avx2 {
constexpr KernelTable kKernels = {AURIS_CPU_KERNELS(AURIS_KERNEL_ENTRY)};
}
#endif
#if AURIS_CPU_PATH_AVX512_BUILT
namespace cpu_avx512 {
constexpr KernelTable kKernels = {AURIS_CPU_KERNELS(AURIS_KERNEL_ENTRY)};
}
#endif
#undef AURIS_KERNEL_ENTRY

bool cpu_path_built(CpuPath path) {
  switch (path) {
    case CpuPath::kScalar: return AURIS_CPU_PATH_SCALAR_BUILT;
    case CpuPath::kAvx2: return AURIS_CPU_PATH_AVX2_BUILT;
    case CpuPath::kAvx512: return AURIS_CPU_PATH_AVX512_BUILT;
  }
  return false;
}

namespace {

const KernelTable& table_for(CpuPath path) {
  switch (path) {
#if AURIS_CPU_PATH_SCALAR_BUILT
    case CpuPath::kScalar: return cpu_scalar::kKernels;
#endif
#if AURIS_CPU_PATH_AVX2_BUILT
    case CpuPath::kAvx2: return cpu_avx2::kKernels;
#endif
#if AURIS_CPU_PATH_AVX512_BUILT
    case CpuPath::kAvx512: return cpu_avx512::kKernels;
#endif
    default: break;
  }
  throw Error("no CPU kernels were built for the " + cpu_path_name(path) + " path");  // cpu_path() rules it out
}

const KernelTable& kernels() {
  static const KernelTable& chosen = table_for(cpu_path());
  return chosen;
}

}  // namespace

#define AURIS_FORWARD_KERNEL(type, name, parameters, arguments) \
  type name parameters { return kernels().name arguments; }
AURIS_CPU_KERNELS(AURIS_FORWARD_KERNEL)
#undef AURIS_FORWARD_KERNEL

}  // namespace auris
