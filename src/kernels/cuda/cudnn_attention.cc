#include "kernels/cuda/cudnn_attention.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <map>
#include <tuple>
#include <type_traits>

#include "auris/error.h"
#include "kernels/cuda/device.h"

#if AURIS_HAVE_CUDNN_FRONTEND
#include <dlfcn.h>

#include <cudnn_frontend.h>

// The frontend's dynamic loading reads cuDNN's symbols from this handle, which its user opens.
namespace cudnn_frontend {
void* cudnn_dlhandle = nullptr;
}
#endif

namespace auris::cuda {

#if AURIS_HAVE_CUDNN_FRONTEND

namespace fe = cudnn_frontend;

namespace {

// Opens libcudnn.so.9 once per process: the reason it could not, or empty.
const std::string& load_cudnn() {
  static const std::string reason = [] {
    for (const char* name : {"libcudnn.so.9", "libcudnn.so"}) {
      if (void* handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)) {
        fe::cudnn_dlhandle = handle;
        return std::string();
      }
    }
    const char* error = dlerror();
    return "cuDNN could not be opened (" + std::string(error ? error : "libcudnn.so.9 not found") +
           "): install cuDNN 9 or put its lib folder on LD_LIBRARY_PATH";
  }();
  return reason;
}

void check(fe::error_t status, const char* what) {
  if (!status.is_good()) throw Error(std::string("cuDNN attention, ") + what + ": " + status.get_message());
}

// Tensor ids in a plan's variant pack.
enum Uid : int64_t { kQuery = 1, kKey, kValue, kOut };

}  // namespace

struct CudnnAttention::Impl {
  cudnnHandle_t handle = nullptr;  // on the stream given at construction
  // One plan per (element type, n, heads, scale, ldo), built on first use.
  std::map<std::tuple<bool, int, int, float, int>, std::shared_ptr<fe::graph::Graph>> plans;
  DeviceBuffer<uint8_t> workspace;

  template <typename T>
  fe::graph::Graph& plan(int n, int heads, float scale, int ldo) {
    constexpr bool bf16 = std::is_same_v<T, __nv_bfloat16>;
    std::shared_ptr<fe::graph::Graph>& graph = plans[{bf16, n, heads, scale, ldo}];
    if (graph) return *graph;
    auto g = std::make_shared<fe::graph::Graph>();
    g->set_io_data_type(bf16 ? fe::DataType_t::BFLOAT16 : fe::DataType_t::HALF)
        .set_intermediate_data_type(fe::DataType_t::FLOAT)
        .set_compute_data_type(fe::DataType_t::FLOAT);
    // [batch 1][heads][n][64], read in place from the fused projection's rows of 3*heads*64.
    const int64_t ld = 3LL * heads * 64;
    auto operand = [&](const char* name, Uid uid) {
      return g->tensor(fe::graph::Tensor_attributes()
                           .set_name(name)
                           .set_uid(uid)
                           .set_dim({1, heads, n, 64})
                           .set_stride({n * ld, 64, ld, 1}));
    };
    auto q = operand("Q", kQuery), k = operand("K", kKey), v = operand("V", kValue);
    auto options = fe::graph::SDPA_attributes().set_name("encoder_attention").set_generate_stats(false).set_attn_scale(scale);
    auto [o, stats] = g->sdpa(q, k, v, options);
    o->set_output(true).set_uid(kOut).set_dim({1, heads, n, 64}).set_stride({static_cast<int64_t>(n) * ldo, 64, ldo, 1});
    check(g->validate(), "validate");
    check(g->build_operation_graph(handle), "build_operation_graph");
    check(g->create_execution_plans({fe::HeurMode_t::A}), "create_execution_plans");
    check(g->check_support(handle), "check_support");
    check(g->build_plans(handle), "build_plans");
    int64_t bytes = 0;
    check(g->get_workspace_size(bytes), "get_workspace_size");
    workspace.resize(static_cast<size_t>(std::max<int64_t>(bytes, 1)));
    graph = std::move(g);
    return *graph;
  }
};

std::string CudnnAttention::unavailable_reason() { return load_cudnn(); }

CudnnAttention::CudnnAttention(cudaStream_t stream) : impl_(std::make_unique<Impl>()) {
  if (const std::string& reason = load_cudnn(); !reason.empty()) throw Error(reason);
  auto failed = [](const char* call, cudnnStatus_t status) {
    return Error(std::string("cuDNN attention: ") + call + " failed: " + fe::detail::get_error_string(status));
  };
  if (cudnnStatus_t status = fe::detail::create_handle(&impl_->handle); status != CUDNN_STATUS_SUCCESS) {
    impl_->handle = nullptr;
    throw failed("cudnnCreate", status);
  }
  if (cudnnStatus_t status = fe::detail::set_stream(impl_->handle, stream); status != CUDNN_STATUS_SUCCESS) {
    fe::detail::destroy_handle(impl_->handle);
    impl_->handle = nullptr;
    throw failed("cudnnSetStream", status);
  }
}

CudnnAttention::~CudnnAttention() {
  if (impl_ && impl_->handle) fe::detail::destroy_handle(impl_->handle);
}

template <typename T>
void CudnnAttention::encoder_attention(const T* qkv, int n, int heads, float scale, T* out, int ldo) {
  fe::graph::Graph& graph = impl_->plan<T>(n, heads, scale, ldo);
  const int64_t width = static_cast<int64_t>(heads) * 64;
  std::unordered_map<int64_t, void*> pack = {{kQuery, const_cast<T*>(qkv)},
                                             {kKey, const_cast<T*>(qkv + width)},
                                             {kValue, const_cast<T*>(qkv + 2 * width)},
                                             {kOut, out}};
  check(graph.execute(impl_->handle, pack, impl_->workspace.data()), "execute");
}

#else  // built without cuDNN's frontend headers

struct CudnnAttention::Impl {};

std::string CudnnAttention::unavailable_reason() {
  return "this build has no cuDNN attention: scripts/fetch_cudnn_frontend.sh fetches cuDNN's frontend headers, "
         "then rebuild";
}

CudnnAttention::CudnnAttention(cudaStream_t) { throw Error(unavailable_reason()); }

CudnnAttention::~CudnnAttention() = default;

template <typename T>
void CudnnAttention::encoder_attention(const T*, int, int, float, T*, int) {
  throw Error(unavailable_reason());
}

#endif

template void CudnnAttention::encoder_attention<__half>(const __half*, int, int, float, __half*, int);
template void CudnnAttention::encoder_attention<__nv_bfloat16>(const __nv_bfloat16*, int, int, float, __nv_bfloat16*,
                                                               int);

}  // namespace auris::cuda
