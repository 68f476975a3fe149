// The stop handlers: a signal sets the flag, and the handlers run on an alternate stack, so that a
// Ctrl-C landing in oneDNN's sgemm (whose kernels point rsp at the heap:
// util/alternate_signal_stack.h) does not write its frame over the heap. Each case runs in a child
// process: the handlers are the process's.
#include "stop_signals.h"

#include <dnnl.h>
#include <gtest/gtest.h>
#include <omp.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>
#include <vector>

#include "test_support.h"

namespace auris::cli {
namespace {

TEST(StopSignals, HandlersSetTheFlagOnAnAlternateStack) {
  test::expect_child_exits_cleanly([] {
    stop_on_signals();
    struct sigaction action = {};
    stack_t stack = {};
    if (sigaction(SIGINT, nullptr, &action) != 0 || !(action.sa_flags & SA_ONSTACK)) return 1;
    if (sigaltstack(nullptr, &stack) != 0 || (stack.ss_flags & SS_DISABLE)) return 2;
    if (stack.ss_size < static_cast<size_t>(MINSIGSTKSZ)) return 3;
    if (stop_requested().load()) return 4;
    std::raise(SIGTERM);
    return stop_requested().load() ? 0 : 5;
  });
}

// The crash itself: SIGINT while the main thread multiplies through oneDNN's sgemm, whose frees
// afterwards found the heap intact.
TEST(StopSignals, CtrlCDuringOneDnnProductsLeavesTheHeapIntact) {
  test::expect_child_exits_cleanly([] {
    stop_on_signals();
    omp_set_num_threads(1);  // the products on the thread the signal goes to
    std::thread signaller([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      ::kill(::getpid(), SIGINT);
    });
    const int n = 384;
    std::vector<float> kept;
    for (int i = 0; i < 100000 && !stop_requested().load(); ++i) {
      std::vector<float> a(n * n, 1.0f), b(n * n, 0.5f), c(n * n);
      if (dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n) != dnnl_success) return 6;
    }
    signaller.join();
    for (int i = 0; i < 100; ++i) std::vector<float>(static_cast<size_t>(1) << (10 + i % 10), 1.0f).swap(kept);
    return stop_requested().load() ? 0 : 7;
  });
}

}  // namespace
}  // namespace auris::cli
