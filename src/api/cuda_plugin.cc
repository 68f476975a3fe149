#include "api/cuda_plugin.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>

#include "auris/error.h"

namespace auris {

namespace {

#if AURIS_HAVE_CUDA_PLUGIN
// The file this code was loaded from: libauris.so, the Python extension (site-packages/auris/), or
// the executable that links libauris.a. dladdr names a shared object by its path; the main program
// it may name by argv[0] alone, so that one is read from /proc.
std::filesystem::path loaded_from() {
  Dl_info info{};
  static const int here = 0;
  if (dladdr(&here, &info) && info.dli_fname && std::filesystem::path(info.dli_fname).is_absolute())
    return info.dli_fname;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("./auris") : exe;
}

std::string plugin_path() {
  if (const char* env = std::getenv("AURIS_CUDA_PLUGIN"); env && *env) return env;
  return (loaded_from().parent_path() / "libauris_cuda.so").string();
}
#endif

const CudaBackend* load() {
#if AURIS_HAVE_CUDA_PLUGIN
  const std::string path = plugin_path();
  // Never closed: the weights and engines it creates live as long as the process.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw Error("cannot load the CUDA backend " + path + " (" + dlerror() +
                "): build auris where the CUDA toolkit is installed, or set AURIS_CUDA_PLUGIN to the library; "
                "or use device \"cpu\"");
  auto entry = reinterpret_cast<const CudaBackend* (*)()>(dlsym(handle, "auris_cuda_backend"));
  if (!entry) throw Error(path + " is not an auris CUDA backend: use device \"cpu\"");
  const CudaBackend* backend = entry();
  if (backend->abi_version != kCudaBackendAbi)
    throw Error(path + " comes from another auris build: rebuild it with this one, or use device \"cpu\"");
  return backend;
#else
  throw Error("this auris was built without CUDA (CMake found no CUDA toolkit): use device \"cpu\", or rebuild where "
              "nvcc and cuBLAS are installed (/usr/local/cuda)");
#endif
}

}  // namespace

const CudaBackend& cuda_backend() {
  static std::once_flag once;
  static const CudaBackend* backend = nullptr;
  std::call_once(once, [] { backend = load(); });  // a failed load throws and is retried next time
  backend->require_device();
  return *backend;
}

}  // namespace auris
