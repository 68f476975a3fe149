// The CUDA device auris runs on, memory on it, and the stream its work is queued on.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_check.h"

namespace auris::cuda {

struct DeviceInfo {
  bool usable = false;
  std::string name;           // "NVIDIA H100 80GB HBM3"
  std::string reason;         // why not usable: no driver, no device, compute capability too old
  int compute_capability = 0;  // 90 for sm_90
  size_t memory_bytes = 0;
};

// Device 0, probed once; never throws.
const DeviceInfo& probe_device();
// Throws auris::Error saying why when no usable device is present.
void require_device();

// While one lives on a thread, the kernels that thread launches through launch() (launch.cuh) may
// start before the kernel ahead of them finishes, where the device supports it (sm_90 and later):
// an engine sets it around the capture of its decode steps, whose kernels are short enough that
// each one's launch and ramp-up show.
class ProgrammaticLaunch {
 public:
  explicit ProgrammaticLaunch(bool allow);
  ~ProgrammaticLaunch();
  ProgrammaticLaunch(const ProgrammaticLaunch&) = delete;
  ProgrammaticLaunch& operator=(const ProgrammaticLaunch&) = delete;
  static bool allowed();

 private:
  bool before_;
};

// A device array of T, freed with its owner. Sizes are in elements.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) { resize(n); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr, o.size_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = o.data_, size_ = o.size_;
      o.data_ = nullptr, o.size_ = 0;
    }
    return *this;
  }

  // Grows to at least n elements (contents are not kept); never shrinks, so a captured CUDA graph
  // keeps pointing at live memory once the largest shape has been seen.
  void resize(size_t n) {
    if (n <= size_) return;
    release();
    AURIS_CUDA_CHECK(cudaMalloc(&data_, n * sizeof(T)));
    size_ = n;
  }
  void upload(const T* host, size_t n, cudaStream_t stream = nullptr) {
    resize(n);
    AURIS_CUDA_CHECK(cudaMemcpyAsync(data_, host, n * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) { upload(host.data(), host.size(), stream); }
  void download(T* host, size_t n, cudaStream_t stream = nullptr) const {
    AURIS_CUDA_CHECK(cudaMemcpyAsync(host, data_, n * sizeof(T), cudaMemcpyDeviceToHost, stream));
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void release() {
    if (data_) cudaFree(data_);
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  size_t size_ = 0;
};

// A non-blocking stream, destroyed with its owner.
class Stream {
 public:
  Stream() { AURIS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { AURIS_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

// Device time between two points of a stream's work, from a pair of CUDA events: what the GPU spent,
// without the host's launch or synchronisation latency that a wall clock around the work adds.
class EventTimer {
 public:
  EventTimer() {
    AURIS_CUDA_CHECK(cudaEventCreate(&start_));
    AURIS_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start(cudaStream_t s) { AURIS_CUDA_CHECK(cudaEventRecord(start_, s)); }
  void stop(cudaStream_t s) { AURIS_CUDA_CHECK(cudaEventRecord(stop_, s)); }
  // Milliseconds from start() to stop(); call once the stream has passed stop().
  float elapsed_ms() const {
    float ms = 0;
    AURIS_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace auris::cuda
