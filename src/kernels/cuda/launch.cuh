// Kernel launches that may overlap the kernel ahead of them (programmatic dependent launch, sm_90+).
// Where ProgrammaticLaunch (device.h) allows it, launch() lets a kernel start while the one before it
// on the stream is still running: the new kernel does what depends on nothing earlier (a gemv pulls
// its weights toward L2), then waits in wait_for_prior_kernels() until the one before has finished
// and its writes are visible. Every kernel launched through launch() calls wait_for_prior_kernels()
// before it reads or writes memory another kernel touches; without the launch attribute, or before
// sm_90, the wait returns at once and the launch is an ordinary one.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device.h"

namespace auris::cuda {

__device__ __forceinline__ void wait_for_prior_kernels() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the next kernel launch once every block of this one has called it: called after the wait, so
// at most one kernel waits ahead of the running one.
__device__ __forceinline__ void allow_next_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

// Starts pulling the 128-byte line at p into L2, without waiting for it.
__device__ __forceinline__ void prefetch_to_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t s, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = ProgrammaticLaunch::allowed() ? 1 : 0;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = 0;
  config.stream = s;
  config.attrs = &attribute;
  config.numAttrs = 1;
  AURIS_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace auris::cuda
