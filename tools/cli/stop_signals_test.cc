// The stop handlers: a signal sets the flag, and the handlers run on an alternate stack, so that a
// Ctrl-C landing in oneDNN's sgemm (whose kernels point rsp at the heap:
// util/alternate_signal_stack.h) does not write its frame over the heap. Each case runs in a child
// process: the handlers are the process's.
#include "stop_signals.h"

#include <dnnl.h>
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>
#include <vector>

namespace auris::cli {
namespace {

// Runs body in a child process; its exit status (a signal that killed it counts as failure).
template <typename Body>
void expect_child_succeeds(Body body) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::signal(SIGINT, SIG_DFL);  // a CI runner's background job starts with it ignored
    std::signal(SIGTERM, SIG_DFL);
    ::_exit(body());
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(StopSignals, HandlersSetTheFlagOnAnAlternateStack) {
  expect_child_succeeds([] {
    stop_on_signals();
    struct sigaction action = {};
    stack_t stack = {};
    if (sigaction(SIGINT, nullptr, &action) != 0 || !(action.sa_flags & SA_ONSTACK)) return 1;
    if (sigaltstack(nullptr, &stack) != 0 || (stack.ss_flags & SS_DISABLE) || stack.ss_size < static_cast<size_t>(MINSIGSTKSZ)) return 2;
    if (stop_requested().load()) return 3;
    std::raise(SIGTERM);
    return stop_requested().load() ? 0 : 4;
  });
}

// The crash itself: SIGINT while the main thread multiplies through oneDNN's sgemm, whose frees
// afterwards found the heap intact.
TEST(StopSignals, CtrlCDuringOneDnnProductsLeavesTheHeapIntact) {
  expect_child_succeeds([] {
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
      if (dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n) != dnnl_success) return 5;
    }
    signaller.join();
    for (int i = 0; i < 100; ++i) std::vector<float>(static_cast<size_t>(1) << (10 + i % 10), 1.0f).swap(kept);
    return stop_requested().load() ? 0 : 6;
  });
}

}  // namespace
}  // namespace auris::cli
