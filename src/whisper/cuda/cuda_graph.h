// What a captured decode step needs of the host side: pinned host memory, which copies inside a
// graph can read and write, and the graph itself, captured once and replayed.
#pragma once

#include <map>

#include <cuda_runtime.h>

#include "kernels/cuda/cuda_check.h"

namespace auris::cuda {

// Pinned host memory, so copies to and from it can sit inside a captured graph.
template <typename X>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(size_t n) { AURIS_CUDA_CHECK(cudaMallocHost(&data_, n * sizeof(X))); }
  ~PinnedBuffer() { cudaFreeHost(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  X* data() { return data_; }

 private:
  X* data_ = nullptr;
};

class Graph {
 public:
  Graph() = default;
  ~Graph() {
    if (exec_) cudaGraphExecDestroy(exec_);
    if (graph_) cudaGraphDestroy(graph_);
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  void begin(cudaStream_t s) { AURIS_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal)); }
  void end(cudaStream_t s) {
    AURIS_CUDA_CHECK(cudaStreamEndCapture(s, &graph_));
    AURIS_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  // Ends a capture that failed part way, dropping what it recorded: a stream left capturing would
  // record every later copy and kernel instead of running them.
  void abandon(cudaStream_t s) noexcept {
    cudaGraph_t partial = nullptr;
    if (cudaStreamEndCapture(s, &partial) == cudaSuccess && partial) cudaGraphDestroy(partial);
    (void)cudaGetLastError();  // the capture's own error, reported by the exception under way
  }
  void launch(cudaStream_t s) const { AURIS_CUDA_CHECK(cudaGraphLaunch(exec_, s)); }
  // Rows each projection multiplies per launch, by layer: counted by the ops while they were captured.
  std::map<const void*, long long> rows_per_launch;

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace auris::cuda
