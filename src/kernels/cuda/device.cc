#include "kernels/cuda/device.h"

namespace auris::cuda {

const DeviceInfo& probe_device() {
  static const DeviceInfo info = [] {
    DeviceInfo d;
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
      d.reason = std::string("the CUDA driver reports: ") + cudaGetErrorString(status);
      return d;
    }
    if (count == 0) {
      d.reason = "no CUDA device is present";
      return d;
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
      d.reason = "cannot read the properties of CUDA device 0";
      return d;
    }
    d.name = prop.name;
    d.compute_capability = prop.major * 10 + prop.minor;
    d.memory_bytes = prop.totalGlobalMem;
    if (d.compute_capability < 80) {
      d.reason = d.name + " has compute capability " + std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                 "; auris's CUDA kernels need 8.0 or newer (A100, H100, L4, RTX 30xx and later)";
      return d;
    }
    d.usable = true;
    return d;
  }();
  return info;
}

namespace {
thread_local bool programmatic_launch = false;
}

ProgrammaticLaunch::ProgrammaticLaunch(bool allow) : before_(programmatic_launch) {
  programmatic_launch = allow && probe_device().compute_capability >= 90;
}
ProgrammaticLaunch::~ProgrammaticLaunch() { programmatic_launch = before_; }
bool ProgrammaticLaunch::allowed() { return programmatic_launch; }

void require_device() {
  const DeviceInfo& d = probe_device();
  if (!d.usable) throw Error("device \"cuda\": " + d.reason + ": use device \"cpu\"");
}

}  // namespace auris::cuda
